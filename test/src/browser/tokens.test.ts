import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  const context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the console in Chromium", () => {
  it("signs up, creates a token, sees it listed, uses it, revokes it", async () => {
    await page.goto(`${server.url}/signup/`);
    await page.getByLabel("Name").fill("Ada Lovelace");
    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill("short");
    await page.getByRole("button", { name: "Sign up" }).click();
    // The server's message for the bad field is shown; nothing was created.
    await expect.poll(() => page.getByText("at least 10 characters").first().isVisible()).toBe(true);

    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(`${server.url}/tokens/`);
    await expect.poll(() => page.getByText("No tokens yet").isVisible()).toBe(true);
    expect(await page.getByTestId("user-email").textContent()).toContain("ada@example.com");

    await page.getByLabel("Token name").fill("laptop");
    await page.getByRole("checkbox", { name: "admin", exact: true }).check();
    await page.getByRole("button", { name: "Create token" }).click();
    const secretBox = page.getByTestId("token-secret");
    await secretBox.waitFor();
    const secret = (await secretBox.textContent())?.trim() ?? "";
    expect(secret).toMatch(/^lo_[0-9A-Za-z]{43}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(secret);

    const row = page.getByTestId("token-row").filter({ hasText: "laptop" });
    await row.waitFor();
    expect(await row.getByTestId("token-status").textContent()).toBe("active");
    expect(await row.textContent()).toContain(secret.slice(0, 7));
    expect(await row.textContent()).not.toContain(secret);

    // The secret works against the API, from outside the browser.
    const me = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).user.email).toBe("ada@example.com");

    // Reloading never shows the secret again.
    await page.reload();
    await row.waitFor();
    expect(await page.getByTestId("token-secret").count()).toBe(0);
    expect(await page.content()).not.toContain(secret);

    await row.getByRole("button", { name: "Revoke" }).click();
    await row.getByRole("button", { name: "Yes, revoke" }).click();
    await expect.poll(() => row.getByTestId("token-status").textContent()).toBe("revoked");
    const after = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${secret}` } });
    expect(after.status).toBe(401);
  });

  it("navigates the frame, signs out and back in", async () => {
    for (const section of ["Skills", "Servers", "Connect", "Team", "Activity", "Tokens"]) {
      await page.getByRole("link", { name: section, exact: true }).click();
      await page.waitForURL(`${server.url}/${section.toLowerCase()}/`);
      expect((await page.locator("h1").first().textContent())?.toLowerCase()).toContain(section.toLowerCase());
    }
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/signin\//);
    await page.goto(`${server.url}/tokens/`);
    await page.waitForURL(/\/signin\//);

    await page.getByLabel("Email").fill("ada@example.com");
    await page.getByLabel("Password").fill("wrong password!");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect.poll(() => page.getByText("email or password is not right").isVisible()).toBe(true);
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(/\/tokens\//);
    await page.getByTestId("token-row").filter({ hasText: "laptop" }).waitFor();
    expect(pageErrors).toEqual([]);
  });
});

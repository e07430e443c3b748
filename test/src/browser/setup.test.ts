import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the one-time setup link", () => {
  it("creates the first account from the printed link, once", async () => {
    expect(server.setupUrl).toMatch(/\/setup\/#token=/);
    const page = await browser.newPage();
    await page.goto(server.setupUrl ?? "");
    await page.getByLabel("Email").fill("first@example.com");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Create account" }).click();
    await page.waitForURL(/\/tokens\//);
    expect(await page.getByTestId("user-email").textContent()).toContain("first@example.com");

    // The link is spent: a second visitor cannot use it.
    const second = await browser.newPage();
    await second.goto(server.setupUrl ?? "");
    await second.waitForTimeout(500);
    const body = await second.textContent("body");
    expect(body).not.toContain("Create account");
    const again = await fetch(`${server.url}/v1/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        token: server.setupUrl?.split("#token=")[1],
        email: "second@example.com",
        password: "correct horse battery",
      }),
    });
    expect(again.status).toBe(403);
  });
});

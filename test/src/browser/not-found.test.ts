/**
 * Addresses nothing serves: a console address gets the console's own not-found page with status 404
 * (issue 22: it was raw JSON), while API paths keep their JSON errors; and the API reference leads
 * back to the console and shows the schemas' Markdown code spans as code.
 */
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
  page = await (await browser.newContext()).newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("addresses nothing serves", () => {
  it("shows the console's not-found page with status 404 for a console address", async () => {
    for (const path of ["/no-such-page/", "/skills/nothing-here/", "/no-such-file.txt"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(404);
      expect(res.headers.get("content-type"), path).toMatch(/^text\/html/);
      const body = await res.text();
      expect(body, path).toContain("Page not found");
      expect(body, path).not.toContain('"code":"not_found"');
    }

    const response = await page.goto(`${server.url}/no-such-page/`);
    expect(response?.status()).toBe(404);
    await page.getByRole("heading", { name: "Page not found", level: 1 }).waitFor();
    await expect.poll(() => page.title()).toBe("Page not found · Loadout");
    await page.getByRole("link", { name: "Go to the console" }).click();
    // The console's first page sends a visitor on this fresh instance (no account yet) to the setup.
    await page.waitForURL(`${server.url}/setup/`);
    expect(pageErrors).toEqual([]);
  });

  it("keeps the JSON error on API paths and for anything but a read", async () => {
    const cases: Array<[string, string]> = [
      ["GET", "/v1/nowhere"],
      ["GET", "/v1"],
      ["GET", "/oauth/nowhere"],
      ["GET", "/.well-known/nowhere"],
      ["GET", "/healthz/nowhere"],
      ["GET", "/mcp/nowhere/at/all"],
      ["POST", "/no-such-page/"],
      ["DELETE", "/skills/"],
    ];
    for (const [method, path] of cases) {
      const res = await fetch(`${server.url}${path}`, { method, headers: { origin: server.url } });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.headers.get("content-type"), `${method} ${path}`).toMatch(/^application\/json/);
      const body = (await res.json()) as { error: { code: string | number; message: string } };
      // /mcp answers in JSON-RPC's shape, the rest in the REST error's.
      if (path.startsWith("/mcp")) expect(body.error.code).toBe(-32004);
      else {
        expect(body.error.code, `${method} ${path}`).toBe("not_found");
        expect(body.error.message).toContain(`No route ${method} ${path}`);
      }
    }
  });

  it("leads from the API reference back to the console, with code spans shown as code", async () => {
    await page.goto(`${server.url}/v1/docs`);
    await page.getByRole("heading", { name: /Loadout API/, level: 1 }).waitFor();
    const text = (await page.locator("body").textContent()) ?? "";
    expect(text).not.toContain("`");
    expect(await page.locator("p code").filter({ hasText: "Authorization: Bearer lo_…" }).count()).toBeGreaterThan(0);
    await page.getByRole("link", { name: "← Back to the console" }).click();
    await page.waitForURL(`${server.url}/setup/`);
    expect(pageErrors).toEqual([]);
  });
});

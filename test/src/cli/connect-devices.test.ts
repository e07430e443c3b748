/**
 * The Connect page's device panel in Chromium: after `loadout sync` (a child process) on this
 * device, the page shows the device with the clients it wrote for, what it wrote and when; Forget
 * removes it.
 */
import { mkdirSync } from "node:fs";
import { hostname } from "node:os";
import path from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, postAsPage, signUpInBrowser } from "../helpers/browser";
import { cliEnv, runCli, tempHome } from "../helpers/cli";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;
let page: Page;
let home: ReturnType<typeof tempHome>;
const pageErrors: string[] = [];

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  page = await (await browser.newContext()).newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  home = tempHome([".claude", ".codex"]);
});
afterAll(async () => {
  await browser?.close();
  home?.remove();
  await server?.close();
});

describe("the Connect page's synced devices", () => {
  it("shows per device what was synced for which clients, and when; Forget removes it", async () => {
    await signUpInBrowser(page, server.url, "devices@example.com");
    const skill = await postAsPage(page, `${server.url}/v1/workspaces/me/skills`, {
      name: "on-the-page",
      description: "A skill to sync.",
      instructions: "x\n",
    });
    expect(skill.status).toBe(201);
    await page.goto(`${server.url}/connect/`);
    await page.getByText("No device has synced yet").waitFor();

    const token = await postAsPage(page, `${server.url}/v1/tokens`, { name: "sync", scopes: ["skills:read"] });
    const env = cliEnv(home.home, server.url);
    expect((await runCli(["login", "--token", String(token.body.secret)], { env })).code).toBe(0);
    const project = path.join(home.home, "shop");
    mkdirSync(project);
    const synced = await runCli(["sync", "--project", project], { env });
    expect(synced.code, synced.stderr).toBe(0);

    await page.reload();
    const row = page.getByTestId("device-row");
    await row.waitFor();
    const text = (await row.textContent()) ?? "";
    expect(text).toContain(hostname());
    expect(text).toContain("Claude Code (skills and personas)");
    expect(text).toContain("Codex (skills)");
    expect(text).toContain("1 skill, 0 personas");
    expect(text).toContain("fitted");
    expect(await row.locator("time").getAttribute("datetime")).toMatch(/^\d{4}-\d{2}-\d{2}T/);

    await row.getByRole("button", { name: `Forget ${hostname()}` }).click();
    await page.getByText("No device has synced yet").waitFor();
    expect(pageErrors).toEqual([]);
  });
});

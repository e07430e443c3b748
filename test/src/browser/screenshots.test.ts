/**
 * The screenshots in docs/: the first run (sign-up and the getting-started checklist), a server's
 * page after Test against a real upstream, and Activity after a client's calls. They are written
 * only with LOADOUT_SCREENSHOTS=1 (`LOADOUT_SCREENSHOTS=1 npx vitest run test/src/browser/screenshots.test.ts`),
 * so an ordinary test run leaves docs/ alone; each scene is checked before it is taken.
 */
import path from "node:path";
import { fileURLToPath } from "node:url";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, postAsPage } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";

const DOCS = fileURLToPath(new URL("../../../docs", import.meta.url));
const wanted = process.env.LOADOUT_SCREENSHOTS === "1";

let server: TestServer;
let upstream: Upstream;
let browser: Browser;
let page: Page;

/**
 * The whole page in a window as tall as it is: a full-page capture of a shorter window leaves the
 * sticky sidebar, one window high, floating mid-page.
 */
async function shoot(name: string): Promise<void> {
  const height = await page.evaluate(() => document.documentElement.scrollHeight);
  await page.setViewportSize({ width: 1280, height });
  await page.screenshot({ path: path.join(DOCS, name) });
  await page.setViewportSize({ width: 1280, height: 800 });
}

const rest = (url: string, body: unknown) => postAsPage(page, url, body);

describe.skipIf(!wanted)("screenshots for docs/", () => {
  beforeAll(async () => {
    upstream = await startEverything();
    server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" });
    browser = await launchChromium();
    page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await upstream?.stop();
  });

  it("the first run", async () => {
    await page.goto(`${server.url}/signup/`);
    await page.getByLabel("Name").fill("Nora Newcomer");
    await page.getByLabel("Email").fill("nora@example.com");
    await page.getByLabel("Password").fill("nora2024");
    await page.getByTestId("password-verdict").waitFor();
    await shoot("first-run-signup.png");
    await page.getByLabel("Password").fill("correct horse battery");
    await page.getByRole("button", { name: "Sign up" }).click();
    await page.waitForURL(`${server.url}/tokens/`);
    await page.getByTestId("getting-started").waitFor();
    await shoot("first-run.png");
  });

  it("a server's page after Test", async () => {
    const imported = await rest("/v1/workspaces/me/servers/import", {
      text: JSON.stringify({ mcpServers: { everything: { url: upstream.url } } }),
    });
    expect(imported.status).toBe(200);
    await page.goto(`${server.url}/servers/edit/?slug=everything&ws=me`);
    const connection = page.getByRole("region", { name: "Connection" });
    await connection.getByRole("button", { name: "Test" }).click();
    await connection
      .getByRole("status")
      .filter({ hasText: /Connected: the server lists \d+ tools?/ })
      .waitFor();
    // One row opened, as a reviewer reads a tool before approving it.
    await page.getByRole("button", { name: "get-env details" }).click();
    await page.locator('[data-testid="tool-details"][data-tool="get-env"] pre').waitFor();
    await shoot("server-page.png");
  });

  it("Activity after a client's calls", async () => {
    const tools = page.getByRole("region", { name: "Tools" });
    await tools.getByRole("button", { name: /^Approve all \d+$/ }).click();
    await tools.getByTestId("approve-all").waitFor();
    await shoot("server-approve-all.png");
    await tools.getByRole("button", { name: /^Yes, approve all \d+$/ }).click();
    await tools.getByTestId("tools-waiting").waitFor({ state: "detached" });
    const token = await rest("/v1/tokens", { name: "Claude Code on laptop", scopes: ["mcp"] });
    const client = new Client({ name: "claude-code", version: "2.1.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { Authorization: `Bearer ${String(token.body.secret)}` } },
      }),
    );
    try {
      await client.callTool({ name: "everything_echo", arguments: { message: "hello" } });
      await client.callTool({ name: "everything_get-sum", arguments: { a: 2, b: 3 } });
      await client.callTool({ name: "skills", arguments: { action: "list" } });
    } finally {
      await client.close();
    }
    await page.goto(`${server.url}/activity/`);
    await expect.poll(() => page.getByText("everything_echo").count(), { timeout: 20_000 }).toBeGreaterThan(0);
    await shoot("activity.png");
  });
});

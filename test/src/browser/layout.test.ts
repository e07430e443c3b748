/**
 * The console's pages at four widths, with realistic data (a long address, a team, a server with its
 * tools, calls from a client on a deep project path): nothing widens the page, no card's content
 * spills out of it, Activity's events table fits its card on a desktop and turns into cards on a
 * phone, and no select cuts off the text it shows (issue 22: "Nora Newcomer (", "Member: reads and
 * writes th"). A select's room is compared with the width Chromium itself gives the same text.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, postAsPage } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";

let server: TestServer;
let upstream: Upstream;
let browser: Browser;
let page: Page;
const pageErrors: string[] = [];

const WIDTHS = [1280, 1024, 800, 390];
const PAGES = [
  "/activity/",
  "/servers/edit/?slug=everything&ws=me",
  "/servers/",
  "/connect/",
  "/tokens/",
  "/team/",
  "/skills/",
  "/skills/new/?kind=skill",
  "/apps/",
  // The team's page, with its invite form and role select; then back to the personal workspace.
  "/team/?ws=nora-labs",
  "/skills/?ws=me",
];

beforeAll(async () => {
  upstream = await startEverything();
  server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" });
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));

  await page.goto(`${server.url}/signup/`);
  await page.getByLabel("Name").fill("Nora Newcomer");
  await page.getByLabel("Email").fill("nora.newcomer.from.the.platform.team@example.com");
  await page.getByLabel("Password").fill("correct horse battery");
  await page.getByRole("button", { name: "Sign up" }).click();
  await page.waitForURL(`${server.url}/tokens/`);

  const imported = await postAsPage(page, "/v1/workspaces/me/servers/import", {
    text: JSON.stringify({ mcpServers: { everything: { url: upstream.url } } }),
  });
  expect(imported.status).toBe(200);
  expect((await postAsPage(page, "/v1/workspaces/me/servers/everything/test", {})).status).toBe(200);
  expect((await postAsPage(page, "/v1/workspaces/me/servers/everything/tools/approve", {})).status).toBe(200);
  const switchedOff = await page.evaluate(async () => {
    const csrf = decodeURIComponent(document.cookie.match(/lo_csrf=([^;]+)/)?.[1] ?? "");
    const res = await fetch("/v1/workspaces/me/servers/everything/tools/get-env", {
      method: "PATCH",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ enabled: false }),
    });
    return res.status;
  });
  expect(switchedOff).toBe(200);
  expect((await postAsPage(page, "/v1/workspaces", { slug: "nora-labs", name: "Nora Labs" })).status).toBe(201);
  const invited = await postAsPage(page, "/v1/workspaces/nora-labs/invites", {
    email: "a.colleague.with.a.long.address@example.com",
    role: "admin",
  });
  expect(invited.status).toBe(201);

  const token = await postAsPage(page, "/v1/tokens", { name: "Claude Code on Nora's work laptop", scopes: ["mcp"] });
  const project = "/home/nora/projects/platform-team/services/a-service-with-a-rather-long-name";
  const client = new Client({ name: "claude-code", version: "2.1.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp?project=${encodeURIComponent(project)}`), {
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
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await upstream?.stop();
});

/** What overflows on the page as it is now: the page itself, a card's content, a select's text. */
function overflows(target: Page): Promise<string[]> {
  return target.evaluate(() => {
    const found: string[] = [];
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth + 1)
      found.push(`the page scrolls sideways (${root.scrollWidth} > ${root.clientWidth})`);
    for (const card of document.querySelectorAll<HTMLElement>(".card")) {
      if (card.scrollWidth > card.clientWidth + 1) {
        const title = card.querySelector("h2, h3")?.textContent ?? card.className;
        found.push(`card "${title}" spills (${card.scrollWidth} > ${card.clientWidth})`);
      }
    }
    for (const select of document.querySelectorAll<HTMLSelectElement>("select")) {
      if (select.offsetParent === null) continue;
      const text = select.selectedOptions[0]?.textContent ?? "";
      // The same select, showing only that text at its natural width: what Chromium needs to show it whole.
      const probe = select.cloneNode(false) as HTMLSelectElement;
      probe.removeAttribute("id");
      probe.append(new Option(text));
      probe.style.cssText = "position:absolute;visibility:hidden;width:auto;min-width:0;max-width:none;flex:none";
      select.parentElement?.append(probe);
      const needed = probe.offsetWidth;
      probe.remove();
      if (select.offsetWidth + 1 < needed) {
        const name = select.labels?.[0]?.textContent ?? select.getAttribute("aria-label") ?? select.id;
        found.push(`select "${name}" cuts "${text}" (${select.offsetWidth} < ${needed})`);
      }
    }
    return found;
  });
}

describe("the console's layout", () => {
  for (const width of WIDTHS) {
    it(`fits its pages at ${width} px: no sideways scroll, nothing out of its card, no select cut off`, async () => {
      await page.setViewportSize({ width, height: 900 });
      const problems: string[] = [];
      for (const path of PAGES) {
        await page.goto(`${server.url}${path}`);
        await page.locator(".page-title").first().waitFor();
        // The page's data arrives after its frame: wait for the lists to settle.
        await page.waitForLoadState("networkidle");
        if (path === "/activity/") await page.getByTestId("activity-row").first().waitFor();
        for (const problem of await overflows(page)) problems.push(`${path}: ${problem}`);
      }
      expect(problems).toEqual([]);
    });
  }

  it("fits Activity's events table in its card on a desktop, and shows each event as a card on a phone", async () => {
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(`${server.url}/activity/`);
    const rows = page.getByTestId("activity-row");
    await rows.filter({ hasText: "everything_echo" }).first().waitFor();
    const wrap = page.locator(".table-wrap").filter({ has: rows.first() });
    const fits = () => wrap.evaluate((el) => el.scrollWidth <= el.clientWidth + 1);
    expect(await fits()).toBe(true);
    await page.setViewportSize({ width: 1024, height: 900 });
    expect(await fits()).toBe(true);

    await page.setViewportSize({ width: 390, height: 900 });
    const card = await page.locator(".card").filter({ has: rows.first() }).boundingBox();
    for (const row of (await rows.all()).slice(0, 5)) {
      const box = await row.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual((card?.x ?? 0) + (card?.width ?? 0));
    }
    // Each field is named on a phone, where the header row is gone.
    expect(await rows.first().locator('[data-label="Who"]').isVisible()).toBe(true);
  });

  it("raised no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});

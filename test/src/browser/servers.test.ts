/**
 * The Servers console in Chromium: pasting an mcpServers block with a good and a bad entry shows
 * both outcomes, a placeholder header gets its real value through a password field, and Test
 * against a real upstream (server-everything on loopback) turns the light green.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpInBrowser } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";
import {
  type MisbehavingUpstream,
  type StatelessUpstream,
  shiftyDescription,
  startMisbehavingUpstream,
  startStatelessUpstream,
} from "../helpers/upstreams";

let server: TestServer;
let upstream: Upstream;
let stateless: StatelessUpstream;
let misbehaving: MisbehavingUpstream;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

const SECRET = "sk-test-0123456789abcdefghijklmnop";
// biome-ignore lint/suspicious/noTemplateCurlyInString: a placeholder as clients write it in their configs, not a template.
const PLACEHOLDER = "${env:EVERYTHING_TOKEN}";

type ToolView = {
  name: string;
  enabled: boolean;
  planSafeActions: string[];
  pin: "approved" | "new" | "changed";
  description: string;
};

type ServerView = {
  slug: string;
  label: string;
  headers: Record<string, string>;
  status: string;
  lastError: string | null;
  revision: number;
};

// The REST API as the signed-in browser sees it: the session cookie, read from the context.
async function rest(path: string): Promise<Response> {
  const cookies = await context.cookies(server.url);
  const cookie = cookies.map((item) => `${item.name}=${item.value}`).join("; ");
  return fetch(`${server.url}/v1/workspaces/me${path}`, { headers: { cookie, accept: "application/json" } });
}

async function stored(slug: string): Promise<ServerView> {
  const response = await rest(`/servers/${slug}`);
  expect(response.status).toBe(200);
  return (await response.json()) as ServerView;
}

const nav = (name: string) =>
  page.getByRole("navigation", { name: "Console" }).getByRole("link", { name, exact: true });

async function tools(slug: string): Promise<ToolView[]> {
  const response = await rest(`/servers/${slug}/tools`);
  expect(response.status).toBe(200);
  return ((await response.json()) as { tools: ToolView[] }).tools;
}

async function pasteAndOpen(block: Record<string, { url: string }>, slug: string): Promise<void> {
  await nav("Servers").click();
  await page.waitForURL(`${server.url}/servers/`);
  await page.getByRole("button", { name: "Paste servers" }).click();
  const dialog = page.getByRole("dialog", { name: "Paste servers" });
  await dialog.getByLabel("mcpServers block").fill(JSON.stringify({ mcpServers: block }));
  await dialog.getByRole("button", { name: "Import" }).click();
  await dialog.getByTestId("import-result").waitFor();
  await dialog.getByRole("link", { name: slug }).click();
  await page.waitForURL(`${server.url}/servers/edit/?slug=${slug}&ws=me`);
}

async function testConnection(): Promise<void> {
  const connection = page.getByRole("region", { name: "Connection" });
  await connection.getByRole("button", { name: "Test" }).click();
  await connection
    .getByRole("status")
    .filter({ hasText: /Connected: the server lists \d+ tools?/ })
    .waitFor();
}

beforeAll(async () => {
  [upstream, stateless, misbehaving] = await Promise.all([
    startEverything(),
    startStatelessUpstream(),
    startMisbehavingUpstream(),
  ]);
  server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" });
  browser = await launchChromium();
  context = await browser.newContext();
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
  await Promise.all([upstream?.stop(), stateless?.stop(), misbehaving?.stop()]);
});

describe("servers in the console", () => {
  it("pastes a block with a good and a bad entry and shows both results, then takes the placeholder's value", async () => {
    await signUpInBrowser(page, server.url, "servers@example.com");
    await nav("Servers").click();
    await page.waitForURL(`${server.url}/servers/`);
    await page.getByText("No servers yet").waitFor();

    await page.getByRole("button", { name: "Paste servers" }).click();
    const dialog = page.getByRole("dialog", { name: "Paste servers" });
    await dialog.waitFor();
    // Import with nothing pasted is refused in place.
    await dialog.getByRole("button", { name: "Import" }).click();
    await dialog.getByRole("alert").filter({ hasText: "Paste an mcpServers block." }).waitFor();

    const block = {
      mcpServers: {
        everything: { type: "http", url: upstream.url, headers: { Authorization: `Bearer ${PLACEHOLDER}` } },
        "local-files": { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"] },
      },
    };
    await dialog.getByLabel("mcpServers block").fill(JSON.stringify(block, null, 2));
    await dialog.getByRole("button", { name: "Import" }).click();

    await dialog.getByRole("status").filter({ hasText: "1 imported, 1 skipped." }).waitFor();
    const imported = dialog.getByTestId("import-imported");
    expect(await imported.textContent()).toContain("everything");
    expect(await imported.textContent()).toContain(PLACEHOLDER);
    const skipped = dialog.getByTestId("import-skipped");
    expect(await skipped.textContent()).toContain("local-files");
    expect(await skipped.textContent()).toContain("stdio servers cannot run in a hosted service");

    // The placeholder gets its real value through a password field; it is stored, and shown only as set.
    const secret = imported.getByLabel("New value for Authorization");
    expect(await secret.getAttribute("type")).toBe("password");
    await secret.fill(`Bearer ${SECRET}`);
    await imported.getByRole("button", { name: "Save secrets" }).click();
    await imported.getByText("Secrets saved.").waitFor();
    const saved = await stored("everything");
    expect(saved.headers.Authorization).toBe("(set)");

    await dialog.getByRole("button", { name: "Done" }).click();
    await dialog.waitFor({ state: "detached" });
    const row = page.getByTestId("server-row").filter({ hasText: "everything" });
    await row.waitFor();
    expect(await row.getByTestId("status-light").getAttribute("data-status")).toBe("unknown");
    expect(await row.getByRole("radio", { name: "global" }).isChecked()).toBe(true);
    expect(await page.content()).not.toContain(SECRET);
  });

  it("reports a paste that is not JSON under the text box, storing nothing", async () => {
    const count = async () => ((await (await rest("/servers")).json()) as { servers: unknown[] }).servers.length;
    const before = await count();
    await page.getByRole("button", { name: "Paste servers" }).click();
    const dialog = page.getByRole("dialog", { name: "Paste servers" });
    await dialog.getByLabel("mcpServers block").fill("[mcp_servers.github]\nurl = 'https://example.com'");
    await dialog.getByRole("button", { name: "Import" }).click();
    await dialog.getByRole("alert").filter({ hasText: "looks like TOML" }).waitFor();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await dialog.waitFor({ state: "detached" });
    expect(await count()).toBe(before);
  });

  it("tests a server from its page and turns the light green; a server that does not answer turns red with the reason", async () => {
    await page.getByTestId("server-row").getByRole("link", { name: "everything" }).click();
    await page.waitForURL(`${server.url}/servers/edit/?slug=everything&ws=me`);
    await page.getByRole("heading", { name: "everything", level: 1 }).waitFor();
    const connection = page.getByRole("region", { name: "Connection" });
    expect(await connection.getByTestId("status-light").getAttribute("data-status")).toBe("unknown");
    // This instance allows servers on loopback: the URL hint does not claim https only.
    const hint = page.getByText("Changing it drops the connection").first();
    expect(await hint.textContent()).toContain("or http on this machine");
    expect(await hint.textContent()).not.toMatch(/https URL only/);

    await connection.getByRole("button", { name: "Test" }).click();
    await expect
      .poll(() => connection.getByTestId("status-light").getAttribute("data-status"), { timeout: 30_000 })
      .toBe("ok");
    await connection
      .getByRole("status")
      .filter({ hasText: /Connected: the server lists \d+ tools/ })
      .waitFor();
    expect((await stored("everything")).status).toBe("ok");

    // Pointing it at a closed port resets the light, and Test then shows the failure and its reason.
    const settings = page.getByRole("form", { name: "Server settings" });
    await settings.getByLabel("URL").fill(upstream.url.replace(/:\d+\//, ":9/"));
    await settings.getByRole("button", { name: "Save" }).click();
    await settings.getByRole("status").filter({ hasText: "connection was reset" }).waitFor();
    expect(await connection.getByTestId("status-light").getAttribute("data-status")).toBe("unknown");
    await connection.getByRole("button", { name: "Test" }).click();
    await expect
      .poll(() => connection.getByTestId("status-light").getAttribute("data-status"), { timeout: 30_000 })
      .toBe("failed");
    const reason = (await stored("everything")).lastError;
    expect(reason).toEqual(expect.any(String));
    expect(await connection.getByTestId("status-error").textContent()).toBe(reason);

    // Back on the upstream, green again; the list shows the same light.
    await settings.getByLabel("URL").fill(upstream.url);
    await settings.getByRole("button", { name: "Save" }).click();
    await settings.getByRole("status").filter({ hasText: "connection was reset" }).waitFor();
    await connection.getByRole("button", { name: "Test" }).click();
    await expect
      .poll(() => connection.getByTestId("status-light").getAttribute("data-status"), { timeout: 30_000 })
      .toBe("ok");
    await page.getByRole("link", { name: "Servers" }).first().click();
    await page.waitForURL(`${server.url}/servers/`);
    const row = page.getByTestId("server-row").filter({ hasText: "everything" });
    await expect.poll(() => row.getByTestId("status-light").getAttribute("data-status")).toBe("ok");
  });

  it("refuses a stale edit without overwriting, like the skills editor", async () => {
    await page.getByTestId("server-row").getByRole("link", { name: "everything" }).click();
    await page.waitForURL(`${server.url}/servers/edit/?slug=everything&ws=me`);
    const settings = page.getByRole("form", { name: "Server settings" });
    await settings.getByLabel("Label").waitFor();

    // Someone else renames it meanwhile (another tab, through the REST API).
    const before = await stored("everything");
    const cookies = await context.cookies(server.url);
    const csrf = cookies.find((item) => item.name === "lo_csrf")?.value ?? "";
    const renamed = await fetch(`${server.url}/v1/workspaces/me/servers/everything`, {
      method: "PATCH",
      headers: {
        cookie: cookies.map((item) => `${item.name}=${item.value}`).join("; "),
        "content-type": "application/json",
        "x-csrf-token": decodeURIComponent(csrf),
      },
      body: JSON.stringify({ revision: before.revision, label: "Everything (theirs)" }),
    });
    expect(renamed.status).toBe(200);

    await settings.getByLabel("Label").fill("Everything (mine)");
    await settings.getByRole("button", { name: "Save" }).click();
    const notice = page.getByRole("alert").filter({ hasText: "nothing was overwritten" });
    await notice.waitFor();
    expect((await stored("everything")).label).toBe("Everything (theirs)");
    await notice.getByRole("button", { name: "Reload" }).click();
    await page.getByRole("heading", { name: "Everything (theirs)", level: 1 }).waitFor();
    expect(await settings.getByLabel("Label").inputValue()).toBe("Everything (theirs)");
  });

  it("switches a server off and on again from its page with the same control as skills", async () => {
    const state = page.getByRole("radiogroup", { name: "Where it is active" });
    await state.getByRole("radio", { name: "off" }).check();
    await expect.poll(async () => (await stored("everything")) as unknown).toMatchObject({ enabled: false });
    await state.getByRole("radio", { name: "global" }).check();
    await expect
      .poll(async () => (await stored("everything")) as unknown)
      .toMatchObject({ enabled: true, state: "global" });
  });

  it("reviews many new tools in one compact table whose rows open, and asks before approving all, naming the ones that read the environment", async () => {
    const region = page.getByRole("region", { name: "Tools" });
    await region.getByTestId("tools-waiting").waitFor();
    const rows = region.getByTestId("tool-row");
    const waiting = await region.locator('[data-testid="tool-row"]:not([data-pin="approved"])').count();
    expect(waiting).toBeGreaterThan(10);
    expect(await rows.count()).toBe(waiting);
    // One table of the tools, a line each until opened: no card per tool above a table of the same tools.
    expect(await region.locator("table").count()).toBe(1);
    expect(await page.getByText(/tools? waits? for your review/).count()).toBe(1);
    const box = await region.boundingBox();
    expect(box?.height ?? Number.POSITIVE_INFINITY).toBeLessThan(300 + waiting * 50);
    const details = region.locator('[data-testid="tool-details"][data-tool="get-env"]');
    expect(await details.isVisible()).toBe(false);
    const toggle = region
      .locator('[data-testid="tool-row"][data-tool="get-env"]')
      .getByRole("button", { name: "get-env details" });
    expect(await toggle.getAttribute("aria-expanded")).toBe("false");
    await toggle.click();
    await expect.poll(() => details.locator("pre").isVisible()).toBe(true);
    expect(await toggle.getAttribute("aria-expanded")).toBe("true");
    expect(await details.textContent()).toContain("Agents see it as everything_get-env");
    await toggle.click();
    await expect.poll(() => details.isVisible()).toBe(false);

    await region.getByRole("button", { name: `Approve all ${waiting}` }).click();
    const confirm = region.getByTestId("approve-all");
    await confirm.waitFor();
    const listed = await confirm.getByTestId("sensitive-tools").locator("code").allTextContents();
    expect(listed).toContain("get-env");
    expect(listed).not.toContain("echo");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    await confirm.waitFor({ state: "detached" });
    expect(await rows.count()).toBe(waiting);
    expect((await tools("everything")).every((tool) => tool.pin === "new")).toBe(true);
  });

  it("lists a server's tools after Test, approves them, and sets enable and plan-safe actions per tool", async () => {
    await pasteAndOpen({ tracker: { url: stateless.url } }, "tracker");
    const table = page.getByRole("region", { name: "Tools" });
    await table.getByText("press Test").waitFor();
    await testConnection();

    // Every tool is new: withheld until approved.
    const waiting = table.getByTestId("tools-waiting");
    await waiting.waitFor();
    expect(await table.locator('[data-testid="tool-row"][data-pin="new"]').count()).toBe(
      (await tools("tracker")).length,
    );
    await table.getByRole("button", { name: /^Approve all \d+$/ }).click();
    await table.getByRole("button", { name: /^Yes, approve all \d+$/ }).click();
    await waiting.waitFor({ state: "detached" });
    expect((await tools("tracker")).every((tool) => tool.pin === "approved")).toBe(true);

    // Plan mode, in the opened row: exact actions for a tool with an action enum, the whole tool for one without.
    const row = (tool: string) => table.locator(`[data-testid="tool-row"][data-tool="${tool}"]`);
    const opened = (tool: string) => table.locator(`[data-testid="tool-details"][data-tool="${tool}"]`);
    const open = async (tool: string) => {
      await row(tool)
        .getByRole("button", { name: `${tool} details` })
        .click();
      await opened(tool).waitFor();
    };
    await open("issues");
    await opened("issues").getByRole("checkbox", { name: "list" }).check();
    await expect
      .poll(async () => (await tools("tracker")).find((t) => t.name === "issues")?.planSafeActions)
      .toEqual(["list"]);
    await opened("issues").getByRole("checkbox", { name: "get" }).check();
    await expect
      .poll(async () => (await tools("tracker")).find((t) => t.name === "issues")?.planSafeActions)
      .toEqual(["list", "get"]);
    await expect.poll(() => row("issues").getByTestId("plan-summary").textContent()).toBe("list, get");
    await open("echo");
    await opened("echo").getByRole("checkbox", { name: "Whole tool echo in plan mode" }).check();
    await expect
      .poll(async () => (await tools("tracker")).find((t) => t.name === "echo")?.planSafeActions)
      .toEqual(["*"]);
    await row("echo").getByRole("checkbox", { name: "Enable echo" }).uncheck();
    await expect.poll(async () => (await tools("tracker")).find((t) => t.name === "echo")?.enabled).toBe(false);
    // What the page shows after a reload is what was stored.
    await page.reload();
    await row("issues").waitFor();
    expect(await row("issues").getByTestId("plan-summary").textContent()).toBe("list, get");
    expect(await row("echo").getByTestId("plan-summary").textContent()).toBe("whole tool");
    await open("issues");
    expect(await opened("issues").getByRole("checkbox", { name: "get" }).isChecked()).toBe(true);
    expect(await opened("issues").getByRole("checkbox", { name: "create" }).isChecked()).toBe(false);
    expect(await row("echo").getByRole("checkbox", { name: "Enable echo" }).isChecked()).toBe(false);

    // The page's single-server URL, with a token, serves this server's approved tools by their own names.
    const single = await page.getByTestId("server-mcp-url").inputValue();
    expect(single).toBe(`${server.url}/mcp/s/me/tracker`);
    const cookies = await context.cookies(server.url);
    const created = await fetch(`${server.url}/v1/tokens`, {
      method: "POST",
      headers: {
        cookie: cookies.map((item) => `${item.name}=${item.value}`).join("; "),
        "x-csrf-token": cookies.find((item) => item.name === "lo_csrf")?.value ?? "",
        "content-type": "application/json",
      },
      body: JSON.stringify({ name: "single", scopes: ["mcp"] }),
    });
    expect(created.status).toBe(201);
    const { secret } = (await created.json()) as { secret: string };
    const client = new Client({ name: "single-url", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(single), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
      }),
    );
    const listed = (await client.listTools()).tools.map((t) => t.name);
    expect(listed).toContain("issues");
    expect(listed).not.toContain("echo");
    await client.close();

    // Activity says which tool changed and how, not only the server.
    await nav("Activity").click();
    await page.waitForURL(`${server.url}/activity/`);
    const updates = page.getByTestId("activity-row").filter({ hasText: "server.tool_updated" });
    await updates.first().waitFor();
    const texts = await updates.allTextContents();
    expect(texts.some((text) => text.includes("echo of server tracker · switched off"))).toBe(true);
    expect(texts.some((text) => text.includes("issues of server tracker · plan-safe: list, get"))).toBe(true);
    await page.goBack();
  });

  it("shows what changed in a tool's definition and approves the change", async () => {
    misbehaving.setShiftyVersion(1);
    await pasteAndOpen({ moody: { url: misbehaving.url } }, "moody");
    await testConnection();
    const region = page.getByRole("region", { name: "Tools" });
    const review = region.getByTestId("tools-waiting");
    await region.getByRole("button", { name: /^Approve all \d+$/ }).click();
    await region.getByRole("button", { name: /^Yes, approve all \d+$/ }).click();
    await review.waitFor({ state: "detached" });

    // The upstream changes shifty's description; Test fetches the list again and the change is withheld.
    misbehaving.setShiftyVersion(2);
    await testConnection();
    await review.waitFor();
    expect(await region.locator('[data-testid="tool-row"]:not([data-pin="approved"])').count()).toBe(1);
    const row = region.locator('[data-testid="tool-row"][data-tool="shifty"]');
    expect(await row.getAttribute("data-pin")).toBe("changed");
    // A changed tool's row opens by itself on what changed.
    const change = region.locator('[data-testid="tool-details"][data-tool="shifty"]');
    await change.getByText("changed since you approved it").waitFor();
    const diff = change.getByRole("list", { name: "shifty: description, approved and now" });
    expect(await diff.locator(".diff-removed").textContent()).toContain(shiftyDescription(1));
    expect(await diff.locator(".diff-added").textContent()).toContain(shiftyDescription(2));
    await change.getByText("Unchanged.").waitFor();
    expect((await tools("moody")).find((tool) => tool.name === "shifty")?.pin).toBe("changed");

    expect(await row.locator(".chip").textContent()).toBe("changed");
    await row.getByRole("button", { name: "Approve shifty" }).click();
    await review.waitFor({ state: "detached" });
    const shifty = (await tools("moody")).find((tool) => tool.name === "shifty");
    expect(shifty).toMatchObject({ pin: "approved", description: shiftyDescription(2) });
    await row.getByText("approved").waitFor();
  });

  it("reviews a server's resources, templates and prompts after Test, approves them and marks one safe for plan mode", async () => {
    const memo = await startStatelessUpstream({ items: true });
    try {
      await pasteAndOpen({ memo: { url: memo.url } }, "memo");
      await testConnection();
      const card = page.getByRole("region", { name: "Resources and prompts" });
      await card.getByTestId("items-waiting").waitFor();
      expect(await card.getByTestId("item-row").count()).toBe(3);
      await card.getByRole("button", { name: "Approve all 3" }).click();
      await card.getByTestId("items-waiting").waitFor({ state: "detached" });
      const items = async () =>
        (
          (await (await rest("/servers/memo/items")).json()) as {
            items: { key: string; pin: string; planSafe: boolean }[];
          }
        ).items;
      expect((await items()).every((item) => item.pin === "approved")).toBe(true);
      await card.getByTestId("item-row").filter({ hasText: "greet" }).getByRole("checkbox", { name: "Safe" }).check();
      await expect.poll(async () => (await items()).find((item) => item.key === "greet")?.planSafe).toBe(true);
    } finally {
      await memo.stop();
    }
  });

  it("raised no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});

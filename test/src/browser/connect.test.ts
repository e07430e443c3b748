/**
 * The Connect page in Chromium: the snippet it writes, with a token it creates, is used as it is by the
 * real MCP SDK client; the connection then shows on the page; a saved endpoint's copied URL pins its mode.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, signUpInBrowser } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let browser: Browser;
let context: BrowserContext;
let page: Page;
const pageErrors: string[] = [];

const SKILL = "shop-conventions";

type McpServersConfig = { mcpServers: { loadout: { url: string; headers: Record<string, string> } } };

// The REST API as the signed-in browser: its cookies, and the CSRF header from the lo_csrf cookie.
async function rest(path: string, init: { method?: string; body?: unknown } = {}) {
  const cookies = await context.cookies(server.url);
  const cookie = cookies.map((item) => `${item.name}=${item.value}`).join("; ");
  const csrf = cookies.find((item) => item.name === "lo_csrf")?.value ?? "";
  const response = await fetch(`${server.url}${path}`, {
    method: init.method ?? "GET",
    headers: {
      cookie,
      "x-csrf-token": decodeURIComponent(csrf),
      accept: "application/json",
      ...(init.body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  return { status: response.status, body: response.status === 204 ? null : await response.json() };
}

async function connect(url: string, headers: Record<string, string>) {
  const client = new Client({ name: "snippet-test", version: "1" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function listedSkills(client: Client): Promise<string[]> {
  const result = await client.callTool({ name: "skills", arguments: { action: "list" } });
  expect(result.isError).toBeFalsy();
  return (result.structuredContent as { items: { name: string }[] }).items.map((item) => item.name);
}

const region = (name: string) => page.getByRole("region", { name, exact: true });
const snippetText = async () => (await page.getByTestId("client-snippet").textContent()) ?? "";

beforeAll(async () => {
  server = await startTestServer();
  browser = await launchChromium();
  context = await browser.newContext({ permissions: ["clipboard-read", "clipboard-write"] });
  page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

describe("the Connect page", () => {
  it("writes a snippet with a new token that a real MCP client uses as it is", async () => {
    await signUpInBrowser(page, server.url);

    await page.getByRole("navigation", { name: "Console" }).getByRole("link", { name: "Connect", exact: true }).click();
    await page.waitForURL(`${server.url}/connect/`);
    const mcpUrl = `${server.url}/mcp`;
    const urlField = page.getByTestId("mcp-url");
    await expect.poll(() => urlField.inputValue()).toBe(mcpUrl);
    await page.getByRole("button", { name: "Copy the MCP URL" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toBe(mcpUrl);
    await page.getByText("No client has connected yet").waitFor();
    // The URL's tool listing in estimated tokens, full against lazy, as the API estimates it.
    const estimates = (await rest("/v1/endpoints/tool-estimates")).body as { default: { full: number; lazy: number } };
    expect(estimates.default.lazy).toBeGreaterThan(estimates.default.full);
    await expect
      .poll(() => page.getByTestId("mcp-url-tokens").textContent())
      .toBe(
        `Full catalog ≈ ${estimates.default.full.toLocaleString("en-US")} tokens · lazy ≈ ${estimates.default.lazy.toLocaleString("en-US")} tokens`,
      );

    // Before a token exists, the snippet holds a placeholder.
    const setup = region("Set up a client");
    expect(await snippetText()).toBe(
      `claude mcp add --transport http loadout ${mcpUrl} --header "Authorization: Bearer lo_…"`,
    );
    await setup.getByRole("tab", { name: "Other (mcpServers JSON)" }).click();
    expect(await setup.getByRole("tab", { name: "Other (mcpServers JSON)" }).getAttribute("aria-selected")).toBe(
      "true",
    );
    await setup.getByLabel("Project path").fill("/Work/Shop");
    expect(JSON.parse(await snippetText())).toEqual({
      mcpServers: {
        loadout: { url: mcpUrl, headers: { Authorization: "Bearer lo_…", "X-Loadout-Project": "/Work/Shop" } },
      },
    });

    await setup.getByRole("button", { name: "Create a token for this" }).click();
    await page.getByTestId("snippet-token-notice").waitFor();
    expect(await page.getByTestId("snippet-token-notice").textContent()).toContain("won't be shown again");
    const config = JSON.parse(await snippetText()) as McpServersConfig;
    const { url, headers } = config.mcpServers.loadout;
    expect(url).toBe(mcpUrl);
    expect(headers.Authorization).toMatch(/^Bearer lo_[0-9A-Za-z]{43}$/);
    expect(headers["X-Loadout-Project"]).toBe("/Work/Shop");
    const secret = headers.Authorization?.slice("Bearer ".length) ?? "";

    // The token was made for this: the mcp scope, 90 days, named after the client and the day.
    const tokens = (await rest("/v1/tokens")).body.tokens as { name: string; scopes: string[]; expiresAt: string }[];
    expect(tokens).toHaveLength(1);
    expect(tokens[0]?.name).toMatch(/^MCP client on \d{4}-\d{2}-\d{2}$/);
    expect(tokens[0]?.scopes).toEqual(["mcp"]);
    const days = (new Date(tokens[0]?.expiresAt ?? 0).getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(89);
    expect(days).toBeLessThanOrEqual(90);

    // The other clients' snippets carry the same headers in their own formats, and a token of their
    // own: one made on this tab is named for this tab's client, so it is not shown on the others.
    await setup.getByRole("tab", { name: "Claude Code" }).click();
    expect(await snippetText()).toBe(
      `claude mcp add --transport http loadout ${mcpUrl} --header "Authorization: Bearer lo_…" --header "X-Loadout-Project: /Work/Shop"`,
    );
    await setup.getByLabel("Plan mode").check();
    await setup.getByRole("tab", { name: "Codex" }).click();
    expect(await snippetText()).toBe(
      [
        "[mcp_servers.loadout]",
        `url = "${mcpUrl}"`,
        `http_headers = { "Authorization" = "Bearer lo_…", "X-Loadout-Project" = "/Work/Shop", "X-Loadout-Mode" = "plan" }`,
      ].join("\n"),
    );
    await setup.getByRole("tab", { name: "VS Code" }).click();
    await setup.getByRole("button", { name: "Create a token for this" }).click();
    await page.getByTestId("snippet-token-notice").waitFor();
    const vscode = JSON.parse(await snippetText()) as { servers: { loadout: { headers: Record<string, string> } } };
    const vscodeSecret = vscode.servers.loadout.headers.Authorization ?? "";
    expect(vscodeSecret).toMatch(/^Bearer lo_[0-9A-Za-z]{43}$/);
    expect(vscodeSecret).not.toBe(`Bearer ${secret}`);
    expect(JSON.parse(await snippetText())).toEqual({
      servers: {
        loadout: {
          type: "http",
          url: mcpUrl,
          headers: { Authorization: vscodeSecret, "X-Loadout-Project": "/Work/Shop", "X-Loadout-Mode": "plan" },
        },
      },
    });
    const names = ((await rest("/v1/tokens")).body.tokens as { name: string }[]).map((t) => t.name).sort();
    expect(names).toEqual([expect.stringMatching(/^MCP client on /), expect.stringMatching(/^VS Code on \d{4}-/)]);
    await setup.getByLabel("Plan mode").uncheck();
    await setup.getByRole("tab", { name: "Other (mcpServers JSON)" }).click();
    expect(JSON.parse(await snippetText())).toEqual(config);

    // A skill scoped to the project: listed only when the session names the project, as the snippet's header does.
    const created = await rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: {
        name: SKILL,
        description: "House rules for the shop repository; use when working in it.",
        instructions: "# Shop\n\nRun the tests before committing.\n",
        scope: { mode: "projects", projects: ["/work/shop"] },
      },
    });
    expect(created.status).toBe(201);

    const client = await connect(url, headers);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain("skills");
      expect(await listedSkills(client)).toContain(SKILL);
    } finally {
      await client.close();
    }
    const withoutProject = await connect(url, { Authorization: `Bearer ${secret}` });
    try {
      expect(await listedSkills(withoutProject)).not.toContain(SKILL);
    } finally {
      await withoutProject.close();
    }

    // The connection is recorded after the response; the page shows it once reloaded.
    await page.reload();
    const row = page
      .getByTestId("connection-row")
      .filter({ hasText: "snippet-test" })
      .filter({ hasText: "/work/shop" });
    await expect
      .poll(async () => {
        if ((await row.count()) === 0) await page.getByRole("button", { name: "Refresh" }).click();
        return row.count();
      })
      .toBe(1);
    expect(await row.getByTestId("connection-client").textContent()).toBe("snippet-test");
    expect(await row.textContent()).toContain("modern");
    expect(await row.textContent()).toContain("agent");
    // The secret was shown once: after the reload it is gone from the page.
    expect(await page.content()).not.toContain(secret);
    expect(await snippetText()).toContain("lo_…");
  });

  it("saves an endpoint whose copied URL pins plan mode, and deletes it", async () => {
    const secret = (await rest("/v1/tokens", { method: "POST", body: { name: "endpoint test", scopes: ["mcp"] } })).body
      .secret as string;
    const endpoints = region("Saved endpoints");
    await endpoints.getByText("No saved endpoints yet").waitFor();
    await endpoints.getByLabel("Name", { exact: true }).fill("shop, plan");
    await endpoints.getByLabel("Project path").fill("/Work/Shop/");
    await endpoints.getByLabel("Mode", { exact: true }).selectOption("plan");
    await endpoints.getByRole("button", { name: "Save endpoint" }).click();

    const row = page.getByTestId("endpoint-row").filter({ hasText: "shop, plan" });
    await row.waitFor();
    expect(await row.getByTestId("endpoint-mode").textContent()).toBe("plan");
    expect(await row.textContent()).toContain("/work/shop");
    expect(await endpoints.getByLabel("Name", { exact: true }).inputValue()).toBe("");
    // Its tool listing in estimated tokens, in plan mode: fewer of Loadout's own tools than the MCP URL's.
    const [estimate] = (await rest("/v1/endpoints/tool-estimates")).body.endpoints as { full: number; lazy: number }[];
    await expect
      .poll(() => row.getByTestId("endpoint-tokens").textContent())
      .toBe(
        `Full catalog ≈ ${estimate?.full.toLocaleString("en-US")} tokens · lazy ≈ ${estimate?.lazy.toLocaleString("en-US")} tokens`,
      );

    await row.getByRole("button", { name: "Copy the URL of shop, plan" }).click();
    await expect.poll(() => page.evaluate(() => navigator.clipboard.readText())).toMatch(/\/mcp\/e\//);
    const endpointUrl = await page.evaluate(() => navigator.clipboard.readText());
    const [saved] = (await rest("/v1/endpoints")).body.endpoints as { path: string }[];
    expect(endpointUrl).toBe(`${server.url}${saved?.path}`);
    expect(await row.getByTestId("endpoint-url").textContent()).toBe(endpointUrl);

    const client = await connect(endpointUrl, { Authorization: `Bearer ${secret}` });
    try {
      expect((await client.listTools()).tools.map((tool) => tool.name)).toEqual(["skills"]);
      // The endpoint pins the project too.
      expect(await listedSkills(client)).toContain(SKILL);
    } finally {
      await client.close();
    }

    await row.getByRole("button", { name: "Delete", exact: true }).click();
    await row.getByRole("button", { name: "Yes, delete" }).click();
    await expect.poll(() => page.getByTestId("endpoint-row").count()).toBe(0);
    await endpoints.getByText("No saved endpoints yet").waitFor();
    expect((await rest("/v1/endpoints")).body.endpoints).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

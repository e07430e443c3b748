/**
 * Upstream OAuth end to end with two real Loadout instances: the second is the OAuth-protected
 * remote server (its /mcp wants its own OAuth tokens, from its own authorization server). The
 * first imports its URL, Test reports "needs sign-in", and Connect runs the whole flow in headless
 * Chromium: sign-in and consent on the second instance, the callback on the first. The official
 * SDK client at the first instance's /mcp then calls the second instance's `skills` tool.
 *
 * Both client identities: the first instance on 127.0.0.1 publishes its client ID metadata
 * document (which the second fetches); reached as `localhost` it publishes none (a document is
 * only served on a loopback address literal), so it registers dynamically.
 */
import { upstreamOAuthConnections, upstreamOAuthRegistrations } from "@loadout/db";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SkillsClient } from "@modelcontextprotocol/client/ext/skills";
import { eq } from "drizzle-orm";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { launchChromium } from "../helpers/browser";
import { startTestServer, type TestServer } from "../helpers/server";

let first: TestServer;
let second: TestServer;
let browser: Browser;
const UPSTREAM_EMAIL = "grace@upstream.example";
const PASSWORD = "correct horse battery";

beforeAll(async () => {
  [first, second] = await Promise.all([
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
    startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }),
  ]);
  const owner = await signUpAccount(second.url, UPSTREAM_EMAIL);
  const created = await owner.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name: "upstream-skill", description: "Served by the second instance.", instructions: "Hi." },
  });
  expect(created.status).toBe(201);
  browser = await launchChromium();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([first?.close(), second?.close()]);
});

/** Signs in to the console at `origin` in a fresh browser context and returns the page. */
async function consoleAt(origin: string, email: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`${origin}/signin/`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/signin"));
  return { context, page };
}

/** The browser leg on the second instance: its sign-in, then its consent page, then back to the first. */
async function signInUpstream(page: Page, upstreamOrigin: string) {
  const signIn = page.getByRole("button", { name: "Sign in" });
  const allow = page.getByRole("button", { name: "Allow" });
  await signIn.or(allow).waitFor();
  expect(page.url().startsWith(upstreamOrigin)).toBe(true);
  if (await signIn.isVisible()) {
    await page.getByLabel("Email").fill(UPSTREAM_EMAIL);
    await page.getByLabel("Password").fill(PASSWORD);
    await signIn.click();
  }
  await allow.waitFor();
  await page.getByRole("button", { name: "Allow" }).click();
}

async function callRemoteSkills(origin: string, token: string, tool = "remote_skills"): Promise<string> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${origin}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: tool, arguments: { action: "list" } });
    return JSON.stringify(result);
  } finally {
    await client.close();
  }
}

async function importRemote(account: Account, upstreamOrigin: string) {
  const imported = await account.rest("/v1/workspaces/me/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { remote: { url: `${upstreamOrigin}/mcp` } } }) },
  });
  expect(imported.status).toBe(200);
  expect(imported.body.imported).toHaveLength(1);
}

// The two instances on different host names, since cookies do not tell ports apart: signing in
// to one must not sign the browser out of the other.
describe.each([
  { kind: "client ID metadata document", host: "127.0.0.1", upstreamHost: "localhost", email: "ada@first.example" },
  { kind: "dynamic registration", host: "localhost", upstreamHost: "127.0.0.1", email: "alan@first.example" },
])("connecting another Loadout with $kind", ({ kind, host, upstreamHost, email }) => {
  it("Test says it needs a sign-in, Connect signs in through the browser, and its tool answers at /mcp", async () => {
    const origin = first.url.replace("127.0.0.1", host);
    const upstreamOrigin = second.url.replace("127.0.0.1", upstreamHost);
    const account = await signUpAccount(origin, email);
    await importRemote(account, upstreamOrigin);

    const tested = await account.rest("/v1/workspaces/me/servers/remote/test", { method: "POST" });
    expect(tested.status).toBe(200);
    expect(tested.body.error).toMatch(/needs sign-in.*OAuth/);
    expect(tested.body.server.auth).toBe("oauth");
    expect(tested.body.server.credentials).toBe("per-user");
    expect(tested.body.server.status).not.toBe("failed");
    const before = await account.rest("/v1/workspaces/me/servers/remote/connection");
    expect(before.body.mine.state).toBe("not_connected");
    expect(before.body.issuer).toBe(upstreamOrigin);

    const token = (await account.token(["mcp"])).secret;

    // The console's server page: its connection panel says so, and Connect leaves for the sign-in.
    const { context, page } = await consoleAt(origin, email);
    await page.goto(`${origin}/servers/edit/?slug=remote&ws=me`);
    const panel = page.getByTestId("connection-panel");
    await expect.poll(() => panel.getByTestId("connection-me").getAttribute("data-state")).toBe("not_connected");
    const authorizeRequest = page.waitForRequest((r) => r.url().startsWith(`${upstreamOrigin}/oauth/authorize`));
    await panel.getByRole("button", { name: "Connect", exact: true }).click();
    const authorize = new URL((await authorizeRequest).url());
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("resource")).toBe(`${upstreamOrigin}/mcp`);
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${origin}/oauth/upstream/callback`);
    expect(authorize.searchParams.get("state")?.length).toBeGreaterThanOrEqual(32);
    const clientId = authorize.searchParams.get("client_id") ?? "";
    if (kind === "client ID metadata document") expect(clientId).toBe(`${origin}/oauth/client-metadata.json`);
    else expect(clientId).toMatch(/^ocl_/);

    await signInUpstream(page, upstreamOrigin);
    await page.waitForURL((url) => url.origin === origin && url.pathname === "/servers/edit/");
    expect(new URL(page.url()).searchParams.get("connected")).toBe("1");
    await expect.poll(() => panel.getByTestId("connection-me").getAttribute("data-state")).toBe("connected");
    await expect.poll(() => panel.getByTestId("connection-scopes").textContent()).toMatch(/mcp/);
    await context.close();

    const after = await account.rest("/v1/workspaces/me/servers/remote/connection");
    expect(after.body.mine.state).toBe("connected");
    expect(after.body.mine.scopes.length).toBeGreaterThan(0);
    // Nothing of a token in any answer.
    expect(JSON.stringify(after.body)).not.toMatch(/lo_|otk_|Bearer/);

    const retested = await account.rest("/v1/workspaces/me/servers/remote/test", { method: "POST" });
    expect(retested.body.error).toBeNull();
    expect(retested.body.tools.tools.map((t: { name: string }) => t.name)).toContain("skills");
    expect(
      (await account.rest("/v1/workspaces/me/servers/remote/tools/approve", { method: "POST", body: {} })).status,
    ).toBe(200);
    expect(await callRemoteSkills(origin, token)).toContain("upstream-skill");

    // Its resources (the other Loadout's skill files) are declared and read with the caller's sign-in.
    expect(
      (await account.rest("/v1/workspaces/me/servers/remote/items/approve", { method: "POST", body: {} })).status,
    ).toBe(200);
    const single = new Client({ name: "oauth-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await single.connect(
      new StreamableHTTPClientTransport(new URL(`${origin}/mcp/s/me/remote`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      expect(single.getServerCapabilities()?.resources).toBeDefined();
      // The other Loadout serves its skills through the Skills extension: passed through here
      // under this server's skill pins, its files read (and verified) with the caller's sign-in.
      const skills = new SkillsClient(single);
      expect(skills.supported).toBe(true);
      expect((await skills.list()).skills.map((s) => s.uri)).toContain("skill://upstream-skill/SKILL.md");
      const { skill } = await skills.get("skill://upstream-skill/SKILL.md");
      const doc = await skills.read(skill);
      expect(doc.verified).toBe(true);
      expect(doc.text).toContain("upstream-skill");
    } finally {
      await single.close();
    }

    // The tokens are stored sealed: neither the access token nor the refresh token is in the clear.
    const [row] = await first.database.db.select().from(upstreamOAuthConnections);
    expect(row?.accessToken).toBeDefined();
    expect(row?.accessToken).not.toMatch(/^otk_|^lo_/);
    const registrations = await first.database.db
      .select()
      .from(upstreamOAuthRegistrations)
      .where(eq(upstreamOAuthRegistrations.redirectUri, `${origin}/oauth/upstream/callback`));
    expect(registrations.map((r) => r.kind)).toEqual([
      kind === "client ID metadata document" ? "metadata-document" : "dynamic",
    ]);
    await first.database.db.delete(upstreamOAuthConnections);
  });
});

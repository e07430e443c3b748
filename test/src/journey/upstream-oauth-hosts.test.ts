/**
 * Per-user upstream OAuth, the same on both hosts (issue "Upstream OAuth"): the Node entry, and the
 * Workers topology in workerd, where the api Worker does discovery, registration and the code
 * exchange through its SSRF-guarded fetch and the proxy Worker keeps one upstream session object
 * per user's credentials. Against the minimal OAuth-protected upstream built on the SDK's server
 * auth helpers (test/src/helpers/oauth-upstream.ts), whose authorization answers at once for the
 * subject the test names: Test finds the sign-in, each member connects their own account, a member
 * who has not is told so (and nothing is sent), and each call rides its caller's own token.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { type OAuthUpstream, startOAuthUpstream } from "../helpers/oauth-upstream";
import { bothHosts, type Host } from "./hosts";

const SECRET_KEY = "oauth-hosts-secret-key-0123456789abcdef";
const PASSWORD = "signed in upstream, twice over";
const PATH = "/v1/workspaces/acme/servers/tracker";

const HOSTS = bothHosts(SECRET_KEY);

describe.each(HOSTS)("per-user upstream OAuth on %s", (_name, start) => {
  let host: Host;
  let upstream: OAuthUpstream;
  let ada: Account;
  let bob: Account;
  let adaToken: string;
  let bobToken: string;

  beforeAll(async () => {
    [host, upstream] = await Promise.all([start(), startOAuthUpstream()]);
    ada = await signUpAccount(host.url, "ada@hosts.example", PASSWORD, host.send);
    bob = await signUpAccount(host.url, "bob@hosts.example", PASSWORD, host.send);
    expect((await ada.rest("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme" } })).status).toBe(
      201,
    );
    const invite = await ada.rest("/v1/workspaces/acme/invites", {
      method: "POST",
      body: { email: "bob@hosts.example", role: "member" },
    });
    const accepted = await bob.rest("/v1/invites/accept", { method: "POST", body: { token: invite.body.secret } });
    expect(accepted.status).toBe(200);
    adaToken = (await ada.token(["mcp"])).secret;
    bobToken = (await bob.token(["mcp"])).secret;
    const imported = await ada.rest("/v1/workspaces/acme/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers: { tracker: { url: upstream.url } } }) },
    });
    expect(imported.body.imported).toHaveLength(1);
  }, 120_000);

  afterAll(async () => {
    await Promise.all([host?.stop(), upstream?.close()]);
  });

  /** Connect, with the browser leg followed by hand: the upstream authorizes `subject` at once. */
  async function connect(account: Account, subject: string) {
    upstream.nextSubject = subject;
    const started = await account.rest(`${PATH}/connect`, { method: "POST", body: {} });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const authorized = await fetch(started.body.authorizationUrl, { redirect: "manual" });
    const location = new URL(authorized.headers.get("location") ?? "");
    expect(location.pathname).toBe("/oauth/upstream/callback");
    // The browser that comes back is the account's own, signed in to the console. (In workerd the
    // Worker sees Miniflare's own address as its origin; the request goes to the same Worker.)
    return host.send(`${host.url}${location.pathname}${location.search}`, {
      redirect: "manual",
      headers: { cookie: account.cookie },
    });
  }

  async function call(token: string): Promise<{ text: string; isError: boolean }> {
    const client = new Client({ name: "oauth-hosts", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => host.send(String(url), init ?? {}),
      }),
    );
    try {
      const result = await client.callTool({ name: "acme_tracker_whoami", arguments: {} });
      const content = result.content as { type: string; text?: string }[];
      return { text: content.map((c) => c.text ?? "").join("\n"), isError: result.isError === true };
    } finally {
      await client.close();
    }
  }

  it("Test finds the sign-in from the 401; the admin connects and approves the tools", async () => {
    const tested = await ada.rest(`${PATH}/test`, { method: "POST" });
    expect(tested.body.error).toMatch(/needs sign-in: tracker signs in with OAuth/);
    const callback = await connect(ada, "alice");
    expect(callback.status).toBe(302);
    expect(callback.headers.get("location")).toBe("/servers/edit/?slug=tracker&ws=acme&connected=1");
    expect(upstream.tokenRequests.at(-1)?.get("code_verifier")?.length).toBeGreaterThanOrEqual(43);
    expect(upstream.tokenRequests.at(-1)?.get("resource")).toBe(upstream.url);
    const retested = await ada.rest(`${PATH}/test`, { method: "POST" });
    expect(retested.body.error).toBeNull();
    expect((await ada.rest(`${PATH}/tools/approve`, { method: "POST", body: {} })).status).toBe(200);
    expect(await call(adaToken)).toEqual({ text: "you are alice", isError: false });
  });

  it("tells a member who has not connected to, and sends nothing", async () => {
    const before = upstream.accessTokens.size;
    const answer = await call(bobToken);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/tracker needs you to sign in first: press "Connect"/);
    expect(upstream.accessTokens.size).toBe(before);
  });

  it.each([
    ["2026-07-28", { versionNegotiation: { mode: "auto" as const } }],
    ["2025 handshake", {}],
  ])("asks a %s member who can open a URL to open the sign-in page, once a call", async (_era, era) => {
    const before = upstream.accessTokens.size;
    const client = new Client(
      { name: "oauth-url", version: "1.0.0" },
      { ...era, capabilities: { elicitation: { url: {} } } },
    );
    const asked: Record<string, unknown>[] = [];
    client.setRequestHandler("elicitation/create", (request) => {
      asked.push(request.params as Record<string, unknown>);
      return { action: "accept" };
    });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${host.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${bobToken}` } },
        fetch: (url, init) => host.send(String(url), init ?? {}),
      }),
    );
    try {
      const result = await client.callTool({ name: "acme_tracker_whoami", arguments: {} });
      expect(asked).toHaveLength(1);
      expect(asked[0]).toMatchObject({ mode: "url" });
      expect(String(asked[0]?.url)).toMatch(/\/servers\/edit\/\?slug=tracker&ws=acme$/);
      expect(String(asked[0]?.message)).toMatch(/tracker needs you to sign in first/);
      // Answered, still not connected: told so, not asked again.
      expect(result.isError).toBe(true);
      expect(JSON.stringify(result.content)).toMatch(/needs you to sign in first/);
    } finally {
      await client.close();
    }
    expect(upstream.accessTokens.size).toBe(before);
  });

  it("has each member ride their own account: Bob never gets Ada's token or session", async () => {
    expect((await connect(bob, "bob")).status).toBe(302);
    expect(await call(bobToken)).toEqual({ text: "you are bob", isError: false });
    expect(await call(adaToken)).toEqual({ text: "you are alice", isError: false });
    expect(await call(bobToken)).toEqual({ text: "you are bob", isError: false });
    // Bob sees only his own connection.
    const mine = await bob.rest(`${PATH}/connection`);
    expect(mine.body.mine.state).toBe("connected");
    expect(JSON.stringify(mine.body)).not.toContain("ada@");
  });

  it("refreshes an expired access token once on the 401, and the call goes through", async () => {
    const refreshes = upstream.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token").length;
    upstream.expireAccessTokens();
    expect(await call(adaToken)).toEqual({ text: "you are alice", isError: false });
    expect(upstream.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token").length).toBe(refreshes + 1);
  });
});

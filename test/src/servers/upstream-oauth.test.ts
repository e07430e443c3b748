/**
 * Upstream OAuth against a minimal OAuth-protected MCP server built with the SDK's server auth
 * helpers (test/src/helpers/oauth-upstream.ts): per-user connections in a team, step-up on
 * insufficient_scope, refresh before expiry and on a 401 with rotation, a reused refresh token
 * refused upstream (that user only), disconnect with revocation, a shared team connection, and
 * the refusals: an issuer mix-up, a PKCE downgrade, an authorization server on a private address.
 * The browser leg is followed by hand (the test authorization server answers at once).
 */
import { createSecretBox, deploymentKeys, sealedKeyId } from "@loadout/api/auth/secret-box";
import { tokenAd } from "@loadout/api/services/servers/credentials";
import { resealUpstreamOAuthSecrets } from "@loadout/api/services/servers/oauth/reseal";
import { auditEvents, upstreamOAuthConnections } from "@loadout/db";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { type OAuthUpstream, startOAuthUpstream } from "../helpers/oauth-upstream";
import { startTestServer, type TestServer } from "../helpers/server";

let server: TestServer;
let upstream: OAuthUpstream;
let ada: Account;
let bob: Account;
let adaToken: string;
let bobToken: string;
const PATH = "/v1/workspaces/acme/servers/tracker";
const SECRET_KEY = "upstream-oauth-test-key-0123456789abcdef";

beforeAll(async () => {
  [server, upstream] = await Promise.all([
    // Postgres's notifications heard late, as on a loaded machine: a call right after a refresh
    // here must take the refreshed connection, not the one cached before it.
    startTestServer(
      { LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", LOADOUT_SECRET_KEY: SECRET_KEY },
      { notificationDelayMs: 300 },
    ),
    startOAuthUpstream(),
  ]);
  ada = await signUpAccount(server.url, "ada@oauth.example");
  bob = await signUpAccount(server.url, "bob@oauth.example");
  expect((await ada.rest("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme" } })).status).toBe(201);
  const invite = await ada.rest("/v1/workspaces/acme/invites", {
    method: "POST",
    body: { email: "bob@oauth.example", role: "member" },
  });
  expect((await bob.rest("/v1/invites/accept", { method: "POST", body: { token: invite.body.secret } })).status).toBe(
    200,
  );
  adaToken = (await ada.token(["mcp"])).secret;
  bobToken = (await bob.token(["mcp"])).secret;
  const imported = await ada.rest("/v1/workspaces/acme/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { tracker: { url: upstream.url } } }) },
  });
  expect(imported.body.imported).toHaveLength(1);
}, 60_000);

afterAll(async () => {
  await server?.close();
  await upstream?.close();
});

/** Connect, with the browser leg followed by hand: authorize answers at once for `subject`. */
async function connect(
  account: Account,
  subject: string,
  body: Record<string, unknown> = {},
  path = PATH,
  to: OAuthUpstream = upstream,
) {
  to.nextSubject = subject;
  const started = await account.rest(`${path}/connect`, { method: "POST", body });
  if (started.status !== 200) return { started, callback: null };
  const authorized = await fetch(started.body.authorizationUrl, { redirect: "manual" });
  const location = authorized.headers.get("location") ?? "";
  // The browser that comes back is the account's own, signed in to the console.
  const callback = await fetch(location, { redirect: "manual", headers: { cookie: account.cookie } });
  return { started, callback, location: new URL(location) };
}

async function call(token: string, tool: string): Promise<{ text: string; isError: boolean }> {
  const client = new Client({ name: "oauth-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  try {
    const result = await client.callTool({ name: tool, arguments: {} });
    const content = result.content as { type: string; text?: string }[];
    return { text: content.map((c) => c.text ?? "").join("\n"), isError: result.isError === true };
  } finally {
    await client.close();
  }
}

const WHOAMI = "acme_tracker_whoami";
const ADMIN = "acme_tracker_admin_action";

describe("per-user connections", () => {
  it("Test finds OAuth from the 401; the admin connects and the tools are approved", async () => {
    const tested = await ada.rest(`${PATH}/test`, { method: "POST" });
    expect(tested.body.error).toMatch(/needs sign-in: tracker signs in with OAuth at http:\/\/127\.0\.0\.1/);
    expect(tested.body.server).toMatchObject({ auth: "oauth", credentials: "per-user", status: "unknown" });

    const { callback, location } = await connect(ada, "alice");
    expect(callback?.status).toBe(302);
    expect(callback?.headers.get("location")).toBe("/servers/edit/?slug=tracker&ws=acme&connected=1");
    const authorize = upstream.authorizeRequests.at(-1);
    expect(authorize?.get("code_challenge_method")).toBe("S256");
    expect(authorize?.get("resource")).toBe(upstream.url);
    expect(authorize?.get("scope")).toBe("read");
    // No client ID metadata document here: Loadout registered dynamically, as a native app on loopback.
    expect(upstream.registrations.at(-1)).toMatchObject({
      application_type: "native",
      token_endpoint_auth_method: "none",
    });
    expect(location?.searchParams.get("iss")).toBe(upstream.issuer);
    const redeemed = upstream.tokenRequests.at(-1);
    expect(redeemed?.get("grant_type")).toBe("authorization_code");
    expect(redeemed?.get("resource")).toBe(upstream.url);
    expect(redeemed?.get("code_verifier")?.length).toBeGreaterThanOrEqual(43);

    const retested = await ada.rest(`${PATH}/test`, { method: "POST" });
    expect(retested.body.error).toBeNull();
    expect((await ada.rest(`${PATH}/tools/approve`, { method: "POST", body: {} })).status).toBe(200);
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
  });

  it("a member who has not connected is told so with the console link; the call is not sent", async () => {
    const before = upstream.accessTokens.size;
    const answer = await call(bobToken, WHOAMI);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/tracker needs you to sign in first: press "Connect"/);
    expect(answer.text).toContain("/servers/edit/?slug=tracker&ws=acme");
    expect(upstream.accessTokens.size).toBe(before);
    const view = await bob.rest(`${PATH}/connection`);
    expect(view.body.mine.state).toBe("not_connected");
    expect(view.body.members).toEqual([]);
  });

  it("each member uses their own account: Bob never rides Ada's token or session", async () => {
    const { callback } = await connect(bob, "bob");
    expect(callback?.status).toBe(302);
    expect(await call(bobToken, WHOAMI)).toEqual({ text: "you are bob", isError: false });
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
    expect(await call(bobToken, WHOAMI)).toEqual({ text: "you are bob", isError: false });
    // The admin sees every member's state; a member sees only their own.
    const admin = await ada.rest(`${PATH}/connection`);
    expect(admin.body.members.map((m: { email: string; state: string }) => [m.email, m.state]).sort()).toEqual([
      ["ada@oauth.example", "connected"],
      ["bob@oauth.example", "connected"],
    ]);
    const member = await bob.rest(`${PATH}/connection`);
    expect(member.body.members).toEqual([]);
    expect(JSON.stringify(member.body)).not.toContain("ada@");
    // Bob cannot reach the team's connection controls, nor anyone else's.
    expect((await bob.rest(`${PATH}/connection?shared=1`, { method: "DELETE" })).status).toBe(403);
    expect((await bob.rest(`${PATH}/connect`, { method: "POST", body: { shared: true } })).status).toBe(403);
  });

  it("a 403 insufficient_scope asks for a step-up with the challenged scope, and the next Connect asks for it", async () => {
    const refused = await call(adaToken, ADMIN);
    expect(refused.isError).toBe(true);
    expect(refused.text).toMatch(/needs more access for this \(scope "read admin"\): press "Connect" again/);
    const view = await ada.rest(`${PATH}/connection`);
    expect(view.body.mine.stepUpScopes).toEqual(["read", "admin"]);
    await connect(ada, "alice");
    expect(upstream.authorizeRequests.at(-1)?.get("scope")).toBe("read admin");
    expect(await call(adaToken, ADMIN)).toEqual({ text: "admin done for alice", isError: false });
    expect((await ada.rest(`${PATH}/connection`)).body.mine.stepUpScopes).toEqual([]);
  });

  it("an access token that expired is refreshed once on the 401, with rotation, and the call goes through", async () => {
    const refreshesBefore = upstream.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token").length;
    upstream.expireAccessTokens();
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
    const refreshes = upstream.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token");
    expect(refreshes.length).toBe(refreshesBefore + 1);
    expect(refreshes.at(-1)?.get("resource")).toBe(upstream.url);
    // Rotated: the next refresh sends the new refresh token, and the old one is spent.
    upstream.expireAccessTokens();
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
    const [first, second] = upstream.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token").slice(-2);
    expect(second?.get("refresh_token")).not.toBe(first?.get("refresh_token"));
    const events = await server.database.db
      .select({ action: auditEvents.action })
      .from(auditEvents)
      .where(eq(auditEvents.action, "server.connection_refreshed"));
    expect(events.length).toBeGreaterThanOrEqual(2);
    expect(upstream.reused).toEqual([]);
  });

  it("a refresh token reused upstream is refused: that user's connection needs sign-in, nobody else's", async () => {
    upstream.spendRefreshToken("alice");
    upstream.expireAccessTokens();
    const answer = await call(adaToken, WHOAMI);
    expect(answer.isError).toBe(true);
    expect(answer.text).toMatch(/The sign-in to tracker is no longer valid .*refused the refresh.*connect again/);
    expect(upstream.reused.length).toBe(1);
    expect((await ada.rest(`${PATH}/connection`)).body.mine).toMatchObject({ state: "needs_sign_in" });
    // Bob's own connection refreshes and works.
    expect(await call(bobToken, WHOAMI)).toEqual({ text: "you are bob", isError: false });
    expect((await bob.rest(`${PATH}/connection`)).body.mine.state).toBe("connected");
    const failed = await server.database.db
      .select({ data: auditEvents.data })
      .from(auditEvents)
      .where(eq(auditEvents.action, "server.connection_failed"));
    expect(failed.length).toBe(1);
    // No token in any stored event.
    expect(JSON.stringify(failed)).not.toMatch(/up_(at|rt)_/);
    // Connecting again mends it.
    await connect(ada, "alice");
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
  });

  it("disconnect forgets and revokes the member's tokens; a second one is a 404, whoever else is connected", async () => {
    const [row] = await server.database.db
      .select({ owner: upstreamOAuthConnections.owner })
      .from(upstreamOAuthConnections)
      .where(eq(upstreamOAuthConnections.connectedBy, upstreamOAuthConnections.owner));
    expect(row).toBeDefined();
    const revokedBefore = upstream.revoked.length;
    expect((await bob.rest(`${PATH}/connection`, { method: "DELETE" })).status).toBe(204);
    expect(upstream.revoked.length).toBe(revokedBefore + 1);
    expect(upstream.revoked.at(-1)).toMatch(/^up_rt_/);
    const again = await bob.rest(`${PATH}/connection`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body.error.message).toMatch(/Your connection to "tracker"/);
    expect((await bob.rest(`${PATH}/connection`)).body.mine.state).toBe("not_connected");
    expect((await call(bobToken, WHOAMI)).text).toMatch(/needs you to sign in first/);
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
  });

  it("another workspace's member cannot see the server or its connections at all", async () => {
    const eve = await signUpAccount(server.url, "eve@oauth.example");
    expect((await eve.rest(`${PATH}/connection`)).status).toBe(404);
    expect((await eve.rest(`${PATH}/connect`, { method: "POST", body: {} })).status).toBe(404);
    expect((await eve.rest(`${PATH}/connection`, { method: "DELETE" })).status).toBe(404);
  });
});

describe("a shared team connection", () => {
  it("an admin connects for the team; every member's calls use it; disconnecting it returns to per-user", async () => {
    const { callback } = await connect(ada, "team-bot", { shared: true });
    expect(callback?.status).toBe(302);
    const view = await bob.rest(`${PATH}/connection`);
    expect(view.body.credentials).toBe("shared");
    expect(view.body.shared.state).toBe("connected");
    expect(await call(bobToken, WHOAMI)).toEqual({ text: "you are team-bot", isError: false });
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are team-bot", isError: false });
    // A member's own Connect is refused while the team's connection serves.
    const own = await bob.rest(`${PATH}/connect`, { method: "POST", body: {} });
    expect(own.status).toBe(409);
    expect((await ada.rest(`${PATH}/connection?shared=1`, { method: "DELETE" })).status).toBe(204);
    expect((await bob.rest(`${PATH}/connection`)).body.credentials).toBe("per-user");
    expect(await call(adaToken, WHOAMI)).toEqual({ text: "you are alice", isError: false });
  });
});

describe("a rotated secret key", () => {
  it("re-seals the tokens under the new key, and they still open to the same values", async () => {
    const old = createSecretBox(deploymentKeys(SECRET_KEY), { purpose: "server-headers" });
    const rotated = createSecretBox(deploymentKeys("the-next-upstream-oauth-key-0123456789", [SECRET_KEY]), {
      purpose: "server-headers",
    });
    const rows = await server.database.db.select().from(upstreamOAuthConnections);
    expect(rows.length).toBeGreaterThan(0);
    const before = await Promise.all(rows.map((r) => old.open(r.accessToken, tokenAd(r.serverId, r.owner, "access"))));
    const outcome = await resealUpstreamOAuthSecrets(server.database.db, rotated);
    expect(outcome).toEqual({ resealed: rows.length, unopenable: 0 });
    const after = await server.database.db.select().from(upstreamOAuthConnections);
    for (const row of after) {
      expect(sealedKeyId(row.accessToken)).toBe(rotated.keyId);
      if (row.refreshToken) expect(sealedKeyId(row.refreshToken)).toBe(rotated.keyId);
    }
    const opened = await Promise.all(
      rows.map((r) => {
        const row = after.find((a) => a.id === r.id);
        return rotated.open(row?.accessToken ?? "", tokenAd(r.serverId, r.owner, "access"));
      }),
    );
    expect(opened).toEqual(before);
    expect(await resealUpstreamOAuthSecrets(server.database.db, rotated)).toEqual({ resealed: 0, unopenable: 0 });
  });
});

describe("refresh before expiry", () => {
  it("a token within a minute of its expiry is refreshed before the call leaves", async () => {
    const shortLived = await startOAuthUpstream({ accessTtlSeconds: 30 });
    try {
      const path = "/v1/workspaces/me/servers/short";
      await ada.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: { text: JSON.stringify({ mcpServers: { short: { url: shortLived.url } } }) },
      });
      await ada.rest(`${path}/test`, { method: "POST" });
      await connect(ada, "alice", {}, path, shortLived);
      const grants = () => shortLived.tokenRequests.filter((r) => r.get("grant_type") === "refresh_token").length;
      const before = grants();
      // Test lists the tools with the token: it is refreshed first, and no 401 was needed.
      const tested = await ada.rest(`${path}/test`, { method: "POST" });
      expect(tested.body.error).toBeNull();
      expect(grants()).toBe(before + 1);
    } finally {
      await shortLived.close();
    }
  });
});

describe("refusals", () => {
  async function attempt(options: Parameters<typeof startOAuthUpstream>[0], slug: string) {
    const bad = await startOAuthUpstream(options);
    await ada.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers: { [slug]: { url: bad.url } } }) },
    });
    return bad;
  }

  it("an answer whose iss is another issuer (a mix-up) is refused and nothing is stored", async () => {
    const bad = await attempt({ answerIss: "http://127.0.0.1:9/" }, "mixup");
    try {
      const path = "/v1/workspaces/me/servers/mixup";
      await ada.rest(`${path}/test`, { method: "POST" });
      const { callback } = await connect(ada, "alice", {}, path, bad);
      expect(callback?.status).toBe(400);
      expect(await callback?.text()).toMatch(/not .*where this sign-in was sent \(a mix-up\); nothing was stored/);
      expect(bad.tokenRequests).toEqual([]);
      expect((await ada.rest(`${path}/connection`)).body.mine.state).toBe("not_connected");
    } finally {
      await bad.close();
    }
  });

  it("an authorization server that does not list S256 (a PKCE downgrade) is refused", async () => {
    const bad = await attempt({ omitPkceMethods: true }, "downgrade");
    try {
      const path = "/v1/workspaces/me/servers/downgrade";
      const tested = await ada.rest(`${path}/test`, { method: "POST" });
      expect(tested.body.error).toMatch(/does not list code_challenge_methods_supported/);
      expect(tested.body.server.status).toBe("failed");
      const started = await ada.rest(`${path}/connect`, { method: "POST", body: {} });
      expect(started.status).toBe(400);
      expect(started.body.error.message).toMatch(/PKCE cannot be relied on/);
      expect(bad.authorizeRequests).toEqual([]);
    } finally {
      await bad.close();
    }
  });

  it("an authorization server on a private address is refused by the SSRF guard", async () => {
    const bad = await attempt({ issuer: "https://10.20.30.40" }, "private-as");
    try {
      const path = "/v1/workspaces/me/servers/private-as";
      const tested = await ada.rest(`${path}/test`, { method: "POST" });
      expect(tested.body.error).toMatch(/10\.20\.30\.40/);
      expect(tested.body.error).toMatch(/private|not allowed|refused|may not/i);
      expect(tested.body.server.status).toBe("failed");
      const started = await ada.rest(`${path}/connect`, { method: "POST", body: {} });
      expect(started.status).toBe(400);
      expect(JSON.stringify(started.body)).not.toMatch(/stack|at .*\.ts/);
    } finally {
      await bad.close();
    }
  });

  it("a dynamic registration the server forgot (invalid_client) is dropped, and the next Connect registers again", async () => {
    const forgetful = await attempt({}, "forgetful");
    try {
      const path = "/v1/workspaces/me/servers/forgetful";
      await ada.rest(`${path}/test`, { method: "POST" });
      const first = await connect(ada, "alice", {}, path, forgetful);
      expect(first.callback?.status).toBe(302);
      const clientId = forgetful.tokenRequests.at(-1)?.get("client_id") ?? "";
      forgetful.forgottenClients.add(clientId);
      const refused = await connect(ada, "alice", {}, path, forgetful);
      expect(refused.callback?.status).toBe(400);
      expect(await refused.callback?.text()).toMatch(/did not redeem the sign-in/);
      const again = await connect(ada, "alice", {}, path, forgetful);
      expect(again.callback?.status).toBe(302);
      expect(forgetful.registrations.length).toBe(2);
      expect(forgetful.tokenRequests.at(-1)?.get("client_id")).not.toBe(clientId);
    } finally {
      await forgetful.close();
    }
  });

  it("a sign-in answer brought back by another account's browser (or a signed-out one) is refused", async () => {
    const path = "/v1/workspaces/me/servers/short-lived-victim";
    const victim = await startOAuthUpstream();
    try {
      await ada.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: { text: JSON.stringify({ mcpServers: { "short-lived-victim": { url: victim.url } } }) },
      });
      await ada.rest(`${path}/test`, { method: "POST" });
      victim.nextSubject = "mallory";
      const started = await ada.rest(`${path}/connect`, { method: "POST", body: {} });
      const location =
        (await fetch(started.body.authorizationUrl, { redirect: "manual" })).headers.get("location") ?? "";
      const asBob = await fetch(location, { redirect: "manual", headers: { cookie: bob.cookie } });
      expect(asBob.status).toBe(400);
      expect(await asBob.text()).toMatch(/not signed in to Loadout as the account that pressed Connect/);
      expect(victim.tokenRequests).toEqual([]);
      expect((await ada.rest(`${path}/connection`)).body.mine.state).toBe("not_connected");
    } finally {
      await victim.close();
    }
  });

  it("a sign-in answer with an unknown or reused state is refused", async () => {
    const answer = await fetch(`${server.url}/oauth/upstream/callback?state=forged&code=x`, { redirect: "manual" });
    expect(answer.status).toBe(400);
    expect(await answer.text()).toMatch(/expired or was already used/);
  });
});

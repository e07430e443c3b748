/**
 * The authorization server through `app.request` on a real database: discovery, registration,
 * authorize → consent → token, refresh rotation, revocation, the audience check at /mcp — and
 * the attacks of issue 6, each refused with the right error and nothing issued.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { maybeSweepOAuth } from "@loadout/api/services/oauth/sweep";
import { bearer, createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { oauthAuthorizations, oauthClients, oauthGrants, oauthTokens } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const ISSUER = "http://localhost";
const RESOURCE = `${ISSUER}/mcp`;
const CALLBACK = "https://claude.ai/api/mcp/auth_callback";
let now = new Date("2026-11-29T12:00:00Z");
let t: TestApp;
let user: TestUser;
let docServer: Server;
let docBase: string;
const documents = new Map<string, { body: string; headers?: Record<string, string>; status?: number }>();
const documentHits = new Map<string, number>();

const pkce = () => {
  const verifier = randomBytes(32).toString("base64url");
  return { verifier, challenge: createHash("sha256").update(verifier).digest("base64url") };
};

async function register(body: Record<string, unknown> = {}, address = "10.1.1.1") {
  const res = await t.app.request("/oauth/register", {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-address": address },
    body: JSON.stringify({ client_name: "Claude", redirect_uris: [CALLBACK], ...body }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

function authorizeUrl(params: Record<string, string | undefined>) {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) query.set(k, v);
  return `/oauth/authorize?${query}`;
}

/** GET /oauth/authorize with a valid request from this client, changed by `params` (undefined drops one). */
async function requestAuthorization(clientId: string, params: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  const res = await t.app.request(
    authorizeUrl({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CALLBACK,
      state: "state-123",
      code_challenge: challenge,
      code_challenge_method: "S256",
      resource: RESOURCE,
      ...params,
    }),
  );
  return { res, verifier };
}

/** The browser-binding cookie /oauth/authorize set, added to the user's session cookies. */
function inBrowserOf(res: Response): { headers: { cookie: string } } {
  const binding = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith("lo_oauth_browser="));
  expect(binding, "/oauth/authorize sets the browser-binding cookie").toBeDefined();
  return { headers: { cookie: `${user.cookie}; ${binding}` } };
}

/** authorize → consent (as the signed-in user, through the REST API the console page uses) → the redirect. */
async function authorize(
  clientId: string,
  options: {
    challenge?: string;
    redirectUri?: string;
    approve?: boolean;
    resource?: string;
    decision?: Record<string, unknown>;
  } = {},
) {
  const { res, verifier } = await requestAuthorization(clientId, {
    ...(options.redirectUri ? { redirect_uri: options.redirectUri } : {}),
    ...(options.challenge ? { code_challenge: options.challenge } : {}),
    ...(options.resource ? { resource: options.resource } : {}),
    scope: "mcp",
  });
  expect(res.status).toBe(302);
  const consent = new URL(res.headers.get("location") ?? "", ISSUER);
  expect(consent.pathname).toBe("/consent/");
  const id = consent.searchParams.get("request") ?? "";
  const view = await user.request(`/v1/oauth/requests/${id}`, inBrowserOf(res));
  expect(view.status).toBe(200);
  const decided = await user.request(`/v1/oauth/requests/${id}/decision`, {
    ...inBrowserOf(res),
    method: "POST",
    body: { approve: options.approve ?? true, ...options.decision },
  });
  expect(decided.status).toBe(200);
  const redirect = new URL(((await decided.json()) as { redirectTo: string }).redirectTo);
  return { redirect, verifier, view: await view.json() };
}

async function token(form: Record<string, string | undefined>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v !== undefined) body.set(k, v);
  const res = await t.app.request("/oauth/token", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: body.toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, string>, headers: res.headers };
}

async function fullFlow(clientId: string, options: Parameters<typeof authorize>[1] = {}) {
  const resource = options.resource ?? RESOURCE;
  const { redirect, verifier } = await authorize(clientId, options);
  const code = redirect.searchParams.get("code") ?? "";
  const issued = await token({
    grant_type: "authorization_code",
    code,
    redirect_uri: CALLBACK,
    client_id: clientId,
    code_verifier: verifier,
    resource,
  });
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  return { code, verifier, tokens: issued.body };
}

async function skillNames(accessToken: string, path = "/mcp"): Promise<string> {
  const res = await t.app.request(path, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "skills", arguments: { action: "list" } },
    }),
  });
  expect(res.status).toBe(200);
  return res.text();
}

function mcpList(accessToken: string, path = "/mcp") {
  return t.app.request(path, {
    method: "POST",
    headers: {
      authorization: `Bearer ${accessToken}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });
}

beforeAll(async () => {
  docServer = createServer((req, res) => {
    const doc = documents.get(req.url ?? "");
    documentHits.set(req.url ?? "", (documentHits.get(req.url ?? "") ?? 0) + 1);
    if (!doc) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(doc.status ?? 200, { "content-type": "application/json", ...doc.headers }).end(doc.body);
  });
  await new Promise<void>((resolve) => docServer.listen(0, "127.0.0.1", resolve));
  docBase = `https://127.0.0.1:${(docServer.address() as AddressInfo).port}`;
  t = await createTestApp({
    clock: () => now,
    deps: {
      allowLoopbackUpstreams: true,
      // A name that resolves to a private address, as an attacker's DNS would answer.
      resolveHost: async (host) => (host === "intranet.example" ? ["10.0.0.8"] : ["127.0.0.1"]),
      // The documents are served on loopback without TLS: the test's stand-in for https.
      clientMetadataFetch: (input, init) =>
        fetch(String(input instanceof Request ? input.url : input).replace(/^https:/, "http:"), init),
    },
  });
  user = await TestUser.signUp(t.app, "oauth@example.com");
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => docServer.close(resolve));
});

describe("discovery", () => {
  it("advertises S256, metadata documents, public clients, iss and the scopes", async () => {
    for (const path of ["/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"]) {
      const meta = (await (await t.app.request(path)).json()) as Record<string, unknown>;
      expect(meta).toMatchObject({
        issuer: ISSUER,
        authorization_endpoint: `${ISSUER}/oauth/authorize`,
        token_endpoint: `${ISSUER}/oauth/token`,
        registration_endpoint: `${ISSUER}/oauth/register`,
        revocation_endpoint: `${ISSUER}/oauth/revoke`,
        code_challenge_methods_supported: ["S256"],
        client_id_metadata_document_supported: true,
        authorization_response_iss_parameter_supported: true,
        scopes_supported: ["mcp"],
      });
      expect(meta.token_endpoint_auth_methods_supported).toContain("none");
    }
    const preflight = await t.app.request("/oauth/token", {
      method: "OPTIONS",
      headers: { origin: "https://inspector.example", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("*");
    const prm = (await (await t.app.request("/.well-known/oauth-protected-resource/mcp")).json()) as Record<
      string,
      unknown
    >;
    expect(prm).toMatchObject({ resource: RESOURCE, authorization_servers: [ISSUER] });
  });
});

describe("the flow", () => {
  it("issues tokens that work at /mcp, rotates refresh tokens, and stops working when revoked", async () => {
    const client = await register({ application_type: "web" });
    expect(client.status).toBe(201);
    expect(client.body).toMatchObject({ token_endpoint_auth_method: "none", application_type: "web" });
    const clientId = String(client.body.client_id);
    const { redirect, verifier, view } = await authorize(clientId);
    expect(view).toMatchObject({
      client: { name: "Claude", domain: "claude.ai", verified: false },
      resource: RESOURCE,
    });
    expect(redirect.origin + redirect.pathname).toBe(CALLBACK);
    expect(redirect.searchParams.get("state")).toBe("state-123");
    expect(redirect.searchParams.get("iss")).toBe(ISSUER);
    const issued = await token({
      grant_type: "authorization_code",
      code: redirect.searchParams.get("code") ?? "",
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
      resource: RESOURCE,
    });
    expect(issued.status).toBe(200);
    expect(issued.headers.get("cache-control")).toBe("no-store");
    expect(issued.body).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "mcp" });
    expect(issued.body.access_token).toMatch(/^loa_/);
    expect(issued.body.refresh_token).toMatch(/^lor_/);
    expect((await mcpList(issued.body.access_token ?? "")).status).toBe(200);
    // Not a REST credential.
    expect((await t.app.request("/v1/me", bearer(issued.body.access_token ?? ""))).status).toBe(401);

    const apps = (await (await user.request("/v1/connected-apps")).json()) as { apps: Array<Record<string, unknown>> };
    expect(apps.apps).toHaveLength(1);
    expect(apps.apps[0]).toMatchObject({ client: { name: "Claude" }, resource: RESOURCE, scopes: ["mcp"] });

    const refreshed = await token({
      grant_type: "refresh_token",
      refresh_token: issued.body.refresh_token,
      client_id: clientId,
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(issued.body.refresh_token);
    expect((await mcpList(refreshed.body.access_token ?? "")).status).toBe(200);

    const revoked = await user.request(`/v1/connected-apps/${apps.apps[0]?.id}`, { method: "DELETE" });
    expect(revoked.status).toBe(204);
    const refused = await mcpList(refreshed.body.access_token ?? "");
    expect(refused.status).toBe(401);
    expect(refused.headers.get("www-authenticate")).toMatch(/error="invalid_token"/);
    expect(
      (await token({ grant_type: "refresh_token", refresh_token: refreshed.body.refresh_token, client_id: clientId }))
        .body.error,
    ).toBe("invalid_grant");
    expect(((await (await user.request("/v1/connected-apps")).json()) as { apps: unknown[] }).apps).toHaveLength(0);
  });

  it("replaces an earlier connection when the same app connects to the same URL again", async () => {
    const clientId = String((await register()).body.client_id);
    const connect = async () => {
      const { redirect, verifier } = await authorize(clientId);
      const issued = await token({
        grant_type: "authorization_code",
        code: redirect.searchParams.get("code") ?? "",
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: verifier,
        resource: RESOURCE,
      });
      expect(issued.status).toBe(200);
      return issued.body.access_token ?? "";
    };
    const first = await connect();
    const second = await connect();
    expect((await mcpList(second)).status).toBe(200);
    expect((await mcpList(first)).status).toBe(401);
    const apps = (await (await user.request("/v1/connected-apps")).json()) as { apps: Array<{ id: string }> };
    expect(apps.apps).toHaveLength(1);
    await user.request(`/v1/connected-apps/${apps.apps[0]?.id}`, { method: "DELETE" });
  });

  it("answers a denial with access_denied, state and iss", async () => {
    const clientId = String((await register()).body.client_id);
    const { redirect } = await authorize(clientId, { approve: false });
    expect(redirect.searchParams.get("error")).toBe("access_denied");
    expect(redirect.searchParams.get("state")).toBe("state-123");
    expect(redirect.searchParams.get("iss")).toBe(ISSUER);
    expect(redirect.searchParams.has("code")).toBe(false);
  });

  it("takes the client_id from HTTP Basic when the body has none", async () => {
    const clientId = String((await register()).body.client_id);
    const { tokens } = await fullFlow(clientId);
    const res = await t.app.request("/oauth/token", {
      method: "POST",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        authorization: `Basic ${btoa(`${encodeURIComponent(clientId)}:`)}`,
      },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: tokens.refresh_token ?? "" }).toString(),
    });
    expect(res.status).toBe(200);
  });

  it("revokes with RFC 7009: a refresh token ends the grant", async () => {
    const clientId = String((await register()).body.client_id);
    const { tokens } = await fullFlow(clientId);
    const res = await t.app.request("/oauth/revoke", {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ token: tokens.refresh_token ?? "", client_id: clientId }).toString(),
    });
    expect(res.status).toBe(200);
    expect((await mcpList(tokens.access_token ?? "")).status).toBe(401);
  });

  it("takes a client ID metadata document served on loopback, and names its verified domain", async () => {
    const clientId = `${docBase}/claude-client.json`;
    documents.set("/claude-client.json", {
      body: JSON.stringify({ client_id: clientId, client_name: "Claude (metadata)", redirect_uris: [CALLBACK] }),
      headers: { "cache-control": "max-age=600" },
    });
    const { redirect, verifier, view } = await authorize(clientId);
    expect(view).toMatchObject({
      client: { name: "Claude (metadata)", kind: "metadata", verified: true, domain: new URL(docBase).host },
    });
    const issued = await token({
      grant_type: "authorization_code",
      code: redirect.searchParams.get("code") ?? "",
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(issued.status).toBe(200);
    expect((await mcpList(issued.body.access_token ?? "")).status).toBe(200);
  });
});

describe("client metadata documents over time", () => {
  it("caches per the headers, stands in while the host is down, and refuses a document that is gone", async () => {
    const clientId = `${docBase}/cached.json`;
    documents.set("/cached.json", {
      body: JSON.stringify({ client_id: clientId, client_name: "Cached", redirect_uris: [CALLBACK] }),
      headers: { "cache-control": "max-age=600" },
    });
    const { tokens } = await fullFlow(clientId);
    expect(documentHits.get("/cached.json")).toBe(1);
    const refresh = (refreshToken: string | undefined) =>
      token({ grant_type: "refresh_token", refresh_token: refreshToken, client_id: clientId });
    const first = await refresh(tokens.refresh_token);
    expect(first.status).toBe(200);
    expect(documentHits.get("/cached.json")).toBe(1);

    documents.set("/cached.json", { body: "down", status: 503 });
    now = new Date(now.getTime() + 20 * 60_000);
    try {
      const stale = await refresh(first.body.refresh_token);
      expect(stale.status, JSON.stringify(stale.body)).toBe(200);
      expect(documentHits.get("/cached.json")).toBe(2);

      documents.delete("/cached.json");
      const gone = await refresh(stale.body.refresh_token);
      expect(gone.status).toBe(401);
      expect(gone.body.error).toBe("invalid_client");
    } finally {
      now = new Date(now.getTime() - 20 * 60_000);
    }
  });
});

describe("pins and resources", () => {
  it("applies the consent's workspace and mode, as a saved endpoint does", async () => {
    expect(
      (await user.request("/v1/workspaces", { method: "POST", body: { slug: "pin-team", name: "Pin team" } })).status,
    ).toBe(201);
    for (const [ws, name] of [
      ["me", "personal-only"],
      ["pin-team", "team-skill"],
    ] as const) {
      const created = await user.request(`/v1/workspaces/${ws}/skills`, {
        method: "POST",
        body: { name, description: `The ${name} skill.`, instructions: "Hello." },
      });
      expect(created.status).toBe(201);
    }
    const clientId = String((await register()).body.client_id);
    const open = await fullFlow(clientId);
    const all = await skillNames(open.tokens.access_token ?? "");
    expect(all).toContain("personal-only");
    expect(all).toContain("team-skill");

    // A second connection (another client: the same one connecting again would replace the first).
    const pinnedClient = String((await register()).body.client_id);
    const { tokens } = await fullFlow(pinnedClient, { decision: { workspace: "pin-team", mode: "plan" } });
    const listed = await skillNames(tokens.access_token ?? "");
    expect(listed).toContain("team-skill");
    expect(listed).not.toContain("personal-only");
    const tools = await (await mcpList(tokens.access_token ?? "")).text();
    expect(tools).toContain('"skills"');
    expect(tools).not.toContain("skill_edit");
    expect(await (await mcpList(open.tokens.access_token ?? "")).text()).toContain("skill_edit");
    const apps = (await (await user.request("/v1/connected-apps")).json()) as { apps: Array<Record<string, unknown>> };
    expect(apps.apps.find((a) => a.mode === "plan")).toMatchObject({ workspace: { slug: "pin-team" }, mode: "plan" });
  });

  it("binds a token to a saved endpoint's URL when that is the resource, and keeps the consent's pins", async () => {
    const endpoint = await user.request("/v1/endpoints", { method: "POST", body: { name: "Pinned" } });
    expect(endpoint.status).toBe(201);
    const id = String(((await endpoint.json()) as { id: string }).id);
    expect(id).toMatch(/^mep_/);
    const clientId = String((await register()).body.client_id);
    const { tokens } = await fullFlow(clientId, { resource: `${ISSUER}/mcp/e/${id}`, decision: { mode: "plan" } });
    const listed = await mcpList(tokens.access_token ?? "", `/mcp/e/${id}`);
    expect(listed.status).toBe(200);
    // The consent's plan pin wins over the endpoint's agent mode.
    expect(await listed.text()).not.toContain("skill_edit");
    expect((await mcpList(tokens.access_token ?? "", "/mcp")).status).toBe(401);
  });

  it("lets only a console session answer a consent request, not an API token", async () => {
    const clientId = String((await register()).body.client_id);
    const { res } = await requestAuthorization(clientId);
    const id = new URL(res.headers.get("location") ?? "", ISSUER).searchParams.get("request");
    const admin = await user.createToken({ name: "admin", scopes: ["admin", "mcp"] });
    const decided = await t.app.request(
      `/v1/oauth/requests/${id}/decision`,
      bearer(admin.secret, { method: "POST", body: { approve: true } }),
    );
    expect(decided.status).toBe(403);
    expect((await user.request(`/v1/oauth/requests/${id}`, inBrowserOf(res))).status).toBe(200);
  });

  it("lets only the browser that started a request read and answer it (issue 21, item 8)", async () => {
    const clientId = String((await register()).body.client_id);
    const { res } = await requestAuthorization(clientId);
    const id = new URL(res.headers.get("location") ?? "", ISSUER).searchParams.get("request");
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith("lo_oauth_browser=")) ?? "";
    expect(cookie).toMatch(new RegExp(`Path=/v1/oauth/requests/${id}(;|$)`));
    expect(cookie).toMatch(/HttpOnly/);
    // A stranger who was sent the consent link: signed in, but without the cookie, or with
    // the cookie of a request of their own.
    const stranger = await TestUser.signUp(t.app, `stranger-${Date.now()}@example.com`);
    const own = await requestAuthorization(clientId);
    const ownBinding = own.res.headers
      .getSetCookie()
      .find((c) => c.startsWith("lo_oauth_browser="))
      ?.split(";")[0];
    const attempts: Record<string, string>[] = [{}, { cookie: `${stranger.cookie}; ${ownBinding}` }];
    for (const headers of attempts) {
      const read = await stranger.request(`/v1/oauth/requests/${id}`, { headers });
      expect(read.status).toBe(403);
      expect(((await read.json()) as { error: { message: string } }).error.message).toMatch(/another browser/);
      const decided = await stranger.request(`/v1/oauth/requests/${id}/decision`, {
        headers,
        method: "POST",
        body: { approve: true },
      });
      expect(decided.status).toBe(403);
    }
    // Nothing was decided: the browser that started it still can.
    const [row] = await t.database.db
      .select()
      .from(oauthAuthorizations)
      .where(eq(oauthAuthorizations.id, id ?? ""));
    expect(row?.decidedAt).toBeNull();
    expect((await user.request(`/v1/oauth/requests/${id}`, inBrowserOf(res))).status).toBe(200);
  });
});

describe("attacks, each refused with nothing issued", () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = String((await register()).body.client_id);
  });

  async function authorizeError(params: Record<string, string | undefined>) {
    return (await requestAuthorization(clientId, params)).res;
  }

  it("refuses missing PKCE and plain PKCE at the client's redirect URI", async () => {
    for (const params of [
      { code_challenge: undefined },
      { code_challenge_method: "plain" },
      { code_challenge_method: undefined },
    ]) {
      const res = await authorizeError(params);
      expect(res.status).toBe(302);
      const location = new URL(res.headers.get("location") ?? "");
      expect(location.origin + location.pathname).toBe(CALLBACK);
      expect(location.searchParams.get("error")).toBe("invalid_request");
      expect(location.searchParams.get("iss")).toBe(ISSUER);
    }
  });

  it("refuses a resource that is not one of Loadout's MCP URLs", async () => {
    for (const resource of [undefined, "https://evil.example/mcp", `${ISSUER}/v1/me`]) {
      const location = new URL((await authorizeError({ resource })).headers.get("location") ?? "");
      expect(location.searchParams.get("error")).toBe("invalid_target");
    }
    const scope = new URL((await authorizeError({ scope: "admin" })).headers.get("location") ?? "");
    expect(scope.searchParams.get("error")).toBe("invalid_scope");
  });

  it("never redirects to an unregistered URI, nor for an unknown client (no open redirect)", async () => {
    for (const params of [
      { redirect_uri: "https://evil.example/callback" },
      { redirect_uri: `${CALLBACK}/../../evil` },
      { redirect_uri: `${CALLBACK}?x=1` },
      { redirect_uri: "https://claude.ai.evil.example/api/mcp/auth_callback" },
      { client_id: "ocl_01jzzzzzzzzzzzzzzzzzzzzzzz", redirect_uri: "https://evil.example/cb" },
      { client_id: undefined },
    ]) {
      const res = await authorizeError(params);
      expect(res.status, JSON.stringify(params)).toBe(400);
      expect(res.headers.get("location")).toBeNull();
      expect(await res.text()).toMatch(/cannot connect/);
    }
  });

  it("refuses a wrong verifier, and the code is burnt", async () => {
    const { redirect, verifier } = await authorize(clientId);
    const code = redirect.searchParams.get("code") ?? "";
    const wrong = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: pkce().verifier,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe("invalid_grant");
    expect(wrong.body.access_token).toBeUndefined();
    const right = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(right.body.error).toBe("invalid_grant");
  });

  it("refuses a redirect URI that differs from the authorized one at the token endpoint", async () => {
    const other = String(
      (await register({ redirect_uris: [CALLBACK, "https://claude.com/api/mcp/auth_callback"] })).body.client_id,
    );
    const { redirect, verifier } = await authorize(other);
    const res = await token({
      grant_type: "authorization_code",
      code: redirect.searchParams.get("code") ?? "",
      redirect_uri: "https://claude.com/api/mcp/auth_callback",
      client_id: other,
      code_verifier: verifier,
    });
    expect(res.body.error).toBe("invalid_grant");
  });

  it("refuses an expired code, and a code presented by another client", async () => {
    const late = await authorize(clientId);
    now = new Date(now.getTime() + 61_000);
    try {
      const expired = await token({
        grant_type: "authorization_code",
        code: late.redirect.searchParams.get("code") ?? "",
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: late.verifier,
      });
      expect(expired.body).toMatchObject({ error: "invalid_grant" });
      expect(expired.body.error_description).toMatch(/expired/);
    } finally {
      now = new Date(now.getTime() - 61_000);
    }
    const stolen = await authorize(clientId);
    const thief = String((await register()).body.client_id);
    const res = await token({
      grant_type: "authorization_code",
      code: stolen.redirect.searchParams.get("code") ?? "",
      redirect_uri: CALLBACK,
      client_id: thief,
      code_verifier: stolen.verifier,
    });
    expect(res.body).toMatchObject({ error: "invalid_grant" });
    expect(res.body.access_token).toBeUndefined();
  });

  it("revokes the grant when a code is presented twice", async () => {
    const { code, verifier, tokens } = await fullFlow(clientId);
    expect((await mcpList(tokens.access_token ?? "")).status).toBe(200);
    const again = await token({
      grant_type: "authorization_code",
      code,
      redirect_uri: CALLBACK,
      client_id: clientId,
      code_verifier: verifier,
    });
    expect(again.body.error).toBe("invalid_grant");
    expect((await mcpList(tokens.access_token ?? "")).status).toBe(401);
    expect(
      (await token({ grant_type: "refresh_token", refresh_token: tokens.refresh_token, client_id: clientId })).body
        .error,
    ).toBe("invalid_grant");
  });

  it("revokes the grant when a rotated refresh token is presented again", async () => {
    const { tokens } = await fullFlow(clientId);
    const first = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(first.status).toBe(200);
    const replay = await token({
      grant_type: "refresh_token",
      refresh_token: tokens.refresh_token,
      client_id: clientId,
    });
    expect(replay.body.error).toBe("invalid_grant");
    expect((await mcpList(first.body.access_token ?? "")).status).toBe(401);
    const next = await token({
      grant_type: "refresh_token",
      refresh_token: first.body.refresh_token,
      client_id: clientId,
    });
    expect(next.body.error).toBe("invalid_grant");
  });

  it("refuses a token presented to another resource, and an expired token", async () => {
    const { tokens } = await fullFlow(clientId);
    const elsewhere = await mcpList(tokens.access_token ?? "", "/mcp/e/mep_01jzzzzzzzzzzzzzzzzzzzzzzz");
    expect(elsewhere.status).toBe(401);
    expect(elsewhere.headers.get("www-authenticate")).toMatch(/invalid_token/);
    now = new Date(now.getTime() + 3601_000);
    try {
      const expired = await mcpList(tokens.access_token ?? "");
      expect(expired.status).toBe(401);
      expect(await expired.text()).toMatch(/expired/);
    } finally {
      now = new Date(now.getTime() - 3601_000);
    }
  });

  it("answers invalid_client (401) for an unknown client at the token endpoint, so connectors register again", async () => {
    const res = await token({
      grant_type: "refresh_token",
      refresh_token: "lor_x",
      client_id: "ocl_01jzzzzzzzzzzzzzzzzzzzzzzz",
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe("invalid_client");
  });

  it("rate-limits registration floods from one address", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await register({}, "10.9.9.9")).status);
    expect(statuses.slice(0, 20).every((s) => s === 201)).toBe(true);
    const flood = await register({}, "10.9.9.9");
    expect(flood.status).toBe(429);
    expect(flood.body.error).toBe("temporarily_unavailable");
  });

  it("rate-limits authorization requests from one address (they may fetch metadata documents)", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) {
      const res = await t.app.request(authorizeUrl({ client_id: clientId, redirect_uri: CALLBACK }), {
        headers: { "x-test-address": "10.8.8.8" },
      });
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 60).every((s) => s === 302)).toBe(true);
    expect(statuses[60]).toBe(429);
  });

  it("refuses redirect URIs that are not https (or loopback for native clients)", async () => {
    expect((await register({ redirect_uris: ["http://evil.example/cb"] })).body.error).toBe("invalid_redirect_uri");
    expect((await register({ redirect_uris: ["http://127.0.0.1:9000/cb"], application_type: "web" })).body.error).toBe(
      "invalid_redirect_uri",
    );
    const native = await register({ redirect_uris: ["http://127.0.0.1:9000/cb"] });
    expect(native.status).toBe(201);
    expect(native.body.application_type).toBe("native");
  });

  it("refuses a metadata document whose client_id differs from its URL, and one on a private address", async () => {
    const liar = `${docBase}/liar.json`;
    documents.set("/liar.json", {
      body: JSON.stringify({
        client_id: `${docBase}/claude-client.json`,
        client_name: "Liar",
        redirect_uris: [CALLBACK],
      }),
    });
    const res = await authorizeError({ client_id: liar });
    expect(res.status).toBe(400);
    expect(await res.text()).toMatch(/not its own URL/);
    const privateDoc = await authorizeError({ client_id: "https://10.0.0.7/client.json" });
    expect(privateDoc.status).toBe(400);
    expect(await privateDoc.text()).toMatch(/private/);
    const privateName = await authorizeError({ client_id: "https://intranet.example/client.json" });
    expect(privateName.status).toBe(400);
    expect(await privateName.text()).toMatch(/resolves to 10\.0\.0\.8, a private network address/);
    const tooBig = `${docBase}/big.json`;
    documents.set("/big.json", {
      body: JSON.stringify({
        client_id: tooBig,
        client_name: "x".repeat(200),
        redirect_uris: [CALLBACK],
        pad: "x".repeat(11_000),
      }),
    });
    expect(await (await authorizeError({ client_id: tooBig })).text()).toMatch(/larger than 10 KB/);
  });
});

describe("housekeeping", () => {
  it("sweeps requests, codes and tokens a day past their expiry, and nothing younger", async () => {
    const db = t.database.db;
    const count = async () => ({
      requests: (await db.select().from(oauthAuthorizations)).length,
      tokens: (await db.select().from(oauthTokens)).length,
    });
    const before = await count();
    expect(before.requests).toBeGreaterThan(0);
    await maybeSweepOAuth(db, new Date(now.getTime() + 3600_000), 1);
    expect(await count()).toEqual(before);
    const clientsBefore = (await db.select().from(oauthClients)).length;
    await maybeSweepOAuth(db, new Date(now.getTime() + 32 * 86_400_000), 1);
    expect(await count()).toEqual({ requests: 0, tokens: 0 });
    // Registered clients that never got a grant are gone once their requests are; those with one stay.
    const clientsAfter = await db.select().from(oauthClients);
    expect(clientsAfter.length).toBeLessThan(clientsBefore);
    const granted = new Set((await db.select().from(oauthGrants)).map((g) => g.clientRef));
    expect(clientsAfter.filter((c) => c.kind === "dynamic").every((c) => granted.has(c.id))).toBe(true);
    expect(granted.size).toBeGreaterThan(0);
  });
});

/**
 * The security suite's MCP half: every MCP method, on both protocol eras, at every kind of MCP URL
 * (`/mcp`, a saved endpoint's, a single server's), is refused alike before any method runs:
 * - no credentials → 401 with the challenge naming that URL's protected-resource metadata;
 * - a revoked or an expired token → 401 invalid_token;
 * - a token without the `mcp` scope → 403 insufficient_scope;
 * - another tenant's endpoint, workspace or server → the same 404 as one that does not exist.
 * And the full token is let through (the checks are not vacuous), a listen stream included.
 */
import { createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

let t: TestApp;
let now = new Date("2026-11-29T12:00:00Z");
const tokens = {} as { full: string; revoked: string; expired: string; lacking: string };
let ownEndpoint = "";
let othersEndpoint = "";

type Era = "modern" | "legacy";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "security-suite", version: "1" },
};

const LISTEN_PARAMS = { notifications: { toolsListChanged: true } };

/** Every MCP method a client can send, with params that pass validation. */
const METHODS: [string, Record<string, unknown>][] = [
  ["tools/list", {}],
  ["tools/call", { name: "skills", arguments: { action: "list" } }],
  ["resources/list", {}],
  ["resources/templates/list", {}],
  ["resources/read", { uri: "skill://sample-skill/SKILL.md" }],
  ["prompts/list", {}],
  ["prompts/get", { name: "anything" }],
  ["completion/complete", { ref: { type: "ref/prompt", name: "anything" }, argument: { name: "a", value: "" } }],
  ["logging/setLevel", { level: "info" }],
  ["skills/list", {}],
  ["subscriptions/listen", LISTEN_PARAMS],
  ["ping", {}],
];

function rpc(era: Era, method: string, params: Record<string, unknown>, secret?: string): RequestInit {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(era === "modern"
      ? {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(typeof params.name === "string" ? { "mcp-name": params.name } : {}),
        }
      : { "mcp-protocol-version": "2025-11-25" }),
  };
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method,
    params: era === "modern" ? { ...params, _meta: ENVELOPE } : params,
  });
  if (secret) headers.authorization = `Bearer ${secret}`;
  return { method: "POST", headers, body };
}

/** A refusal's status, JSON-RPC code, Loadout code and message, and its challenge. */
async function refusal(res: Response) {
  const body = (await res.json()) as {
    id: unknown;
    error?: { code: number; message: string; data?: { code: string } };
  };
  expect(body.id).toBeNull();
  return {
    status: res.status,
    code: body.error?.code,
    loadoutCode: body.error?.data?.code,
    message: body.error?.message,
    challenge: res.headers.get("www-authenticate"),
  };
}

beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  const actor = await TestUser.signUp(t.app, "mcp-actor@example.com");
  tokens.full = (await actor.createToken({ name: "full", scopes: ["mcp"] })).secret;
  const revoked = await actor.createToken({ name: "revoked", scopes: ["mcp"] });
  expect((await actor.request(`/v1/tokens/${revoked.token.id}`, { method: "DELETE" })).status).toBe(204);
  tokens.revoked = revoked.secret;
  tokens.expired = (await actor.createToken({ name: "expired", scopes: ["mcp"], expiresInDays: 1 })).secret;
  tokens.lacking = (await actor.createToken({ name: "no mcp", scopes: ["skills:read", "servers:read"] })).secret;
  const endpoint = await actor.request("/v1/endpoints", { method: "POST", body: { name: "own" } });
  expect(endpoint.status).toBe(201);
  ownEndpoint = (await endpoint.json()).id;

  // The other tenant really has what the probes name, so "not found" is about access, not existence.
  const other = await TestUser.signUp(t.app, "mcp-other@example.com");
  expect(
    (await other.request("/v1/workspaces", { method: "POST", body: { slug: "other-team", name: "Other" } })).status,
  ).toBe(201);
  const imported = await other.request("/v1/workspaces/other-team/servers/import", {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { "sample-server": { url: "https://mcp.example.com/mcp" } } }) },
  });
  expect((await imported.json()).imported).toHaveLength(1);
  const theirs = await other.request("/v1/endpoints", { method: "POST", body: { name: "theirs" } });
  expect(theirs.status).toBe(201);
  othersEndpoint = (await theirs.json()).id;

  // Two days on: the one-day token has expired, the others have no expiry.
  now = new Date(now.getTime() + 2 * 86_400_000);
});
afterAll(() => t.close());

/** `/mcp`, a saved endpoint's URL and a single server's. */
const URLS = (): [string, string][] => [
  ["/mcp", "/mcp"],
  ["a saved endpoint", `/mcp/e/${ownEndpoint}`],
  ["a single server", "/mcp/s/me/sample-server"],
];

describe.each(["modern", "legacy"] as Era[])("every MCP method on the %s era", (era) => {
  it("is refused without credentials with 401 and the challenge of the URL it was sent to", async () => {
    for (const [, path] of URLS())
      for (const [method, params] of METHODS) {
        const refused = await refusal(await t.app.request(path, rpc(era, method, params)));
        expect(refused, `${method} at ${path}`).toMatchObject({ status: 401, loadoutCode: "unauthorized" });
        expect(refused.challenge).toBe(
          `Bearer resource_metadata="http://localhost/.well-known/oauth-protected-resource${path}", scope="mcp"`,
        );
      }
  });

  it("is refused with a revoked or an expired token with 401 invalid_token", async () => {
    for (const secret of [tokens.revoked, tokens.expired])
      for (const [, path] of URLS())
        for (const [method, params] of METHODS) {
          const refused = await refusal(await t.app.request(path, rpc(era, method, params, secret)));
          expect(refused, `${method} at ${path}`).toMatchObject({ status: 401, loadoutCode: "unauthorized" });
          expect(refused.challenge).toContain('error="invalid_token"');
        }
  });

  it("is refused with a token lacking the mcp scope with 403 insufficient_scope", async () => {
    for (const [, path] of URLS())
      for (const [method, params] of METHODS) {
        const refused = await refusal(await t.app.request(path, rpc(era, method, params, tokens.lacking)));
        expect(refused, `${method} at ${path}`).toMatchObject({ status: 403, loadoutCode: "insufficient_scope" });
        expect(refused.challenge).toContain('error="insufficient_scope"');
      }
  });

  it("answers another tenant's endpoint, workspace and server exactly like ones that do not exist", async () => {
    const pairs: [string, string][] = [
      [`/mcp/e/${othersEndpoint}`, "/mcp/e/ep_01jzzzzzzzzzzzzzzzzzzzzzzz"],
      ["/mcp/s/other-team/sample-server", "/mcp/s/no-such-team/sample-server"],
    ];
    for (const [theirs, missing] of pairs)
      for (const [method, params] of METHODS) {
        const a = await refusal(await t.app.request(theirs, rpc(era, method, params, tokens.full)));
        const b = await refusal(await t.app.request(missing, rpc(era, method, params, tokens.full)));
        expect(a.status, `${method} at ${theirs}`).toBe(404);
        // The same words but for the id the probe itself sent.
        expect({ ...a, message: a.message?.replace(theirs.split("/").slice(3).join("/"), "…") }).toEqual({
          ...b,
          message: b.message?.replace(missing.split("/").slice(3).join("/"), "…"),
        });
      }
  });

  it("lets the full token through at /mcp and its own endpoint (the refusals above are not vacuous)", async () => {
    for (const path of ["/mcp", `/mcp/e/${ownEndpoint}`]) {
      const res = await t.app.request(path, rpc(era, "tools/list", {}, tokens.full));
      expect(res.status, `${path}: ${await res.clone().text()}`).toBe(200);
    }
  });
});

describe("subscriptions/listen with the full token", () => {
  it("opens a stream whose first event acknowledges the subscription", async () => {
    const res = await t.app.request("/mcp", rpc("modern", "subscriptions/listen", LISTEN_PARAMS, tokens.full));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    expect(first).toContain("notifications/subscriptions/acknowledged");
  });
});

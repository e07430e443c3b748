/**
 * With LOADOUT_PUBLIC_URL set, the issuer and the MCP URLs tokens are bound to come from it, not
 * from the request: a spoofed Host or X-Forwarded-Proto cannot mint a token for another origin.
 */
import { createHash, randomBytes } from "node:crypto";
import { createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const PUBLIC = "https://loadout.example";
const CALLBACK = "https://claude.ai/api/mcp/auth_callback";
let t: TestApp;
let user: TestUser;

beforeAll(async () => {
  t = await createTestApp({ deps: { publicUrl: `${PUBLIC}/` } });
  user = await TestUser.signUp(t.app, "public-url@example.com");
});
afterAll(() => t.close());

describe("a configured public URL", () => {
  it("is the issuer and the resource, whatever the request's Host says", async () => {
    const spoofed = { host: "evil.example", "x-forwarded-proto": "http" };
    const meta = (await (
      await t.app.request("/.well-known/oauth-authorization-server", { headers: spoofed })
    ).json()) as {
      issuer: string;
    };
    expect(meta.issuer).toBe(PUBLIC);
    const prm = (await (
      await t.app.request("/.well-known/oauth-protected-resource/mcp", { headers: spoofed })
    ).json()) as {
      resource: string;
    };
    expect(prm.resource).toBe(`${PUBLIC}/mcp`);

    const client = (await (
      await t.app.request("/oauth/register", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ client_name: "Claude", redirect_uris: [CALLBACK] }),
      })
    ).json()) as { client_id: string };
    const verifier = randomBytes(32).toString("base64url");
    const params = {
      response_type: "code",
      client_id: client.client_id,
      redirect_uri: CALLBACK,
      state: "s",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
    };
    const evil = await t.app.request(
      `/oauth/authorize?${new URLSearchParams({ ...params, resource: "https://evil.example/mcp" })}`,
      {
        headers: spoofed,
      },
    );
    expect(new URL(evil.headers.get("location") ?? "").searchParams.get("error")).toBe("invalid_target");

    const ok = await t.app.request(`/oauth/authorize?${new URLSearchParams({ ...params, resource: `${PUBLIC}/mcp` })}`);
    const id = new URL(ok.headers.get("location") ?? "", PUBLIC).searchParams.get("request");
    // The consent is answered in the browser that started it: with the cookie /oauth/authorize set.
    const binding = ok.headers
      .getSetCookie()
      .find((c) => c.startsWith("lo_oauth_browser="))
      ?.split(";")[0];
    const decided = await user.request(`/v1/oauth/requests/${id}/decision`, {
      headers: { cookie: `${user.cookie}; ${binding}` },
      method: "POST",
      body: { approve: true },
    });
    const redirect = new URL(((await decided.json()) as { redirectTo: string }).redirectTo);
    expect(redirect.searchParams.get("iss")).toBe(PUBLIC);
    const issued = (await (
      await t.app.request("/oauth/token", {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code: redirect.searchParams.get("code") ?? "",
          redirect_uri: CALLBACK,
          client_id: client.client_id,
          code_verifier: verifier,
        }).toString(),
      })
    ).json()) as { access_token: string };
    const list = await t.app.request("/mcp", {
      method: "POST",
      headers: {
        authorization: `Bearer ${issued.access_token}`,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    expect(list.status).toBe(200);
  });
});

/**
 * Issue 21, item 3: a NUL (or another control character) in a text field is refused with a 400
 * naming the field, on every surface, and no answer, REST or MCP, carries SQL or an internal
 * message. Each case here answered 500 (or quoted the failed statement) before the rule.
 */
import { createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ENVELOPE, mcpHeaders } from "../helpers/mcp-http";
import { LEAK } from "./leak";

let t: TestApp;
let user: TestUser;
let mcpToken: string;

async function expectRefused(res: Response, field: string) {
  const text = await res.text();
  expect(res.status, text).toBe(400);
  expect(text).not.toMatch(LEAK);
  const body = JSON.parse(text) as { error: { code: string; details?: { path: string; message: string }[] } };
  expect(body.error.code).toBe("invalid_request");
  expect(
    body.error.details?.some((d) => d.path === field && /control character|NUL/.test(d.message)),
    text,
  ).toBe(true);
}

function mcp(body: Record<string, unknown>, query = "") {
  const params = body.params as { name?: string } | undefined;
  const method = String(body.method);
  return t.app.request(`/mcp${query}`, {
    method: "POST",
    headers: mcpHeaders(mcpToken, method, params?.name),
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, ...body, params: { ...params, _meta: ENVELOPE } }),
  });
}

beforeAll(async () => {
  t = await createTestApp();
  user = await TestUser.signUp(t.app, "nul@example.com");
  mcpToken = (await user.createToken({ name: "mcp", scopes: ["mcp"] })).secret;
  const created = await user.request("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name: "present", description: "A skill that exists.", instructions: "Body." },
  });
  expect(created.status).toBe(201);
});
afterAll(() => t.close());

describe("a NUL in a text field", () => {
  it("is refused in a skill's description, naming the field, and nothing is stored", async () => {
    const res = await user.request("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name: "with-nul", description: "Bad\u0000one.", instructions: "Body." },
    });
    await expectRefused(res, "description");
    expect((await user.request("/v1/workspaces/me/skills/with-nul")).status).toBe(404);
  });

  it("is refused in a team's name, a token's name, an endpoint's name and a project path", async () => {
    await expectRefused(
      await user.request("/v1/workspaces", { method: "POST", body: { slug: "nul-team", name: "Team\u0000" } }),
      "name",
    );
    await expectRefused(
      await user.request("/v1/tokens", { method: "POST", body: { name: "tok\u0000", scopes: ["mcp"] } }),
      "name",
    );
    await expectRefused(
      await user.request("/v1/endpoints", { method: "POST", body: { name: "end\u0000point" } }),
      "name",
    );
    await expectRefused(
      await user.request("/v1/workspaces/me/projects", { method: "POST", body: { path: "/work/\u0000" } }),
      "path",
    );
  });

  it("keeps line breaks in Markdown but refuses other control characters there", async () => {
    const ok = await user.request("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name: "multi-line", description: "Line one\nline two.", instructions: "# T\n\n\tindented\r\n" },
    });
    expect(ok.status, await ok.text()).toBe(201);
    await expectRefused(
      await user.request("/v1/workspaces/me/skills", {
        method: "POST",
        body: { name: "escape", description: "Fine.", instructions: "colour \u001b[31m red" },
      }),
      "instructions",
    );
  });

  it("is refused without sign-in too: client_name at /oauth/register and name at sign-up", async () => {
    const register = await t.app.request("/oauth/register", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ redirect_uris: ["https://app.example.com/cb"], client_name: "App\u0000" }),
    });
    const registerText = await register.text();
    expect(register.status, registerText).toBe(400);
    expect(registerText).toMatch(/client_name/);
    expect(registerText).not.toMatch(LEAK);
    await expectRefused(
      await t.app.request("/v1/auth/signup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ email: "n@example.com", password: "correct horse battery", name: "N\u0000" }),
      }),
      "name",
    );
  });

  it("in a path parameter or a query is refused rather than sent to the database", async () => {
    const res = await user.request("/v1/workspaces/%00/skills");
    expect(res.status).toBe(400);
    expect(await res.text()).not.toMatch(LEAK);
    await expectRefused(await user.request("/v1/workspaces/me/skills?project=%00"), "project");
  });
});

describe("a NUL over MCP", () => {
  it("in ?project= is an invalid_request JSON-RPC error, not a 500", async () => {
    const res = await mcp(
      { method: "tools/call", params: { name: "skills", arguments: { action: "list" } } },
      "?project=%00",
    );
    const text = await res.text();
    expect(res.status, text).toBeLessThan(500);
    expect(text).not.toMatch(LEAK);
    expect(text).toMatch(/project/);
  });

  it("in skill_edit or skills get gives a tool error naming the field, never the failed SQL", async () => {
    const answers = [
      await mcp({
        method: "tools/call",
        params: {
          name: "skill_edit",
          arguments: { action: "create", name: "mcp-nul", description: "x\u0000y", instructions: "z" },
        },
      }),
      await mcp({
        method: "tools/call",
        params: { name: "skills", arguments: { action: "get", name: "pre\u0000sent" } },
      }),
      await mcp({
        method: "tools/call",
        params: { name: "skills", arguments: { action: "get", name: "present", path: "a\u0000b" } },
      }),
    ];
    for (const res of answers) {
      const text = await res.text();
      expect(res.status, text).toBeLessThan(500);
      expect(text, text).not.toMatch(LEAK);
      expect(text).toMatch(/control character|NUL|invalid/i);
    }
    expect((await user.request("/v1/workspaces/me/skills/mcp-nul")).status).toBe(404);
  });
});

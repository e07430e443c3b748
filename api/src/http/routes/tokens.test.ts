import { apiTokens, auditEvents } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashSecret } from "../../auth/secrets";
import { bearer, createTestApp, type TestApp, TestUser } from "../../testing";

let t: TestApp;
let now = new Date("2026-11-29T12:00:00Z");
let ada: TestUser;
beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  ada = await TestUser.signUp(t.app, "ada@example.com");
});
afterAll(() => t.close());

describe("API tokens", () => {
  it("returns the lo_ secret once, stores only its hash, and lists the token without it", async () => {
    const created = await ada.createToken({ name: "laptop", scopes: ["mcp", "skills:read"], expiresInDays: 30 });
    expect(created.secret).toMatch(/^lo_[0-9A-Za-z]{43}$/);
    expect(created.token).toMatchObject({
      name: "laptop",
      prefix: created.secret.slice(0, 7),
      scopes: ["mcp", "skills:read"],
      workspace: null,
      status: "active",
      expiresAt: "2026-12-29T12:00:00.000Z",
      lastUsedAt: null,
    });
    const [row] = await t.database.db.select().from(apiTokens).where(eq(apiTokens.id, created.token.id));
    expect(row?.secretHash).toBe(hashSecret(created.secret));
    const list = await (await ada.request("/v1/tokens")).json();
    expect(list.tokens[0].id).toBe(created.token.id);
    expect(JSON.stringify(list)).not.toContain(created.secret);
    const [event] = await t.database.db.select().from(auditEvents).where(eq(auditEvents.targetId, created.token.id));
    expect(event?.action).toBe("token.created");
    expect(JSON.stringify(event)).not.toContain(created.secret);
  });

  it("authenticates with the token, records last use, and stops at once when revoked", async () => {
    const { token, secret } = await ada.createToken({ name: "ci", scopes: ["admin"] });
    const me = await t.app.request("/v1/me", bearer(secret));
    expect(me.status).toBe(200);
    const body = await me.json();
    expect(body.principal).toMatchObject({ kind: "token", tokenId: token.id, scopes: ["admin"], workspace: null });
    expect(body.csrfToken).toBeNull();
    await new Promise((r) => setTimeout(r, 50));
    const [used] = await t.database.db.select().from(apiTokens).where(eq(apiTokens.id, token.id));
    expect(used?.lastUsedAt?.toISOString()).toBe(now.toISOString());

    expect((await t.app.request(`/v1/tokens/${token.id}`, bearer(secret, { method: "DELETE" }))).status).toBe(204);
    const after = await t.app.request("/v1/me", bearer(secret));
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toContain("invalid_token");
    expect((await after.json()).error.message).toContain("revoked");
    const listed = await (await ada.request("/v1/tokens")).json();
    expect(listed.tokens.find((x: { id: string }) => x.id === token.id).status).toBe("revoked");
  });

  it("expires tokens", async () => {
    const { secret } = await ada.createToken({ name: "short", scopes: ["mcp"], expiresInDays: 1 });
    expect((await t.app.request("/v1/me", bearer(secret))).status).toBe(200);
    const saved = now;
    now = new Date(saved.getTime() + 86_400_000 + 1);
    try {
      const res = await t.app.request("/v1/me", bearer(secret));
      expect(res.status).toBe(401);
      expect((await res.json()).error.message).toContain("expired");
    } finally {
      now = saved;
    }
  });

  it("enforces scopes: a token cannot act or grant beyond its own", async () => {
    const { secret } = await ada.createToken({ name: "mcp only", scopes: ["mcp"] });
    const list = await t.app.request("/v1/tokens", bearer(secret));
    expect(list.status).toBe(403);
    expect((await list.json()).error.code).toBe("insufficient_scope");
    const { secret: admin } = await ada.createToken({ name: "admin", scopes: ["admin"] });
    const escalate = await t.app.request(
      "/v1/tokens",
      bearer(admin, { method: "POST", body: { name: "x", scopes: ["admin", "servers:write"] } }),
    );
    expect(escalate.status).toBe(403);
    expect((await escalate.json()).error.message).toContain("servers:write");
  });

  it("narrows a token to one workspace; its children stay narrowed", async () => {
    const team = await ada.request("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme" } });
    expect(team.status).toBe(201);
    const { token, secret } = await ada.createToken({ name: "acme bot", scopes: ["admin"], workspace: "acme" });
    expect(token).toMatchObject({ workspace: { slug: "acme", name: "Acme" } });
    const ws = await (await t.app.request("/v1/workspaces", bearer(secret))).json();
    expect(ws.workspaces.map((w: { slug: string }) => w.slug)).toEqual(["acme"]);
    expect((await t.app.request("/v1/workspaces/me", bearer(secret))).status).toBe(404);
    expect((await t.app.request("/v1/workspaces/acme", bearer(secret))).status).toBe(200);
    const child = await t.app.request(
      "/v1/tokens",
      bearer(secret, { method: "POST", body: { name: "child", scopes: ["admin"] } }),
    );
    expect((await child.json()).token.workspace).toEqual({ slug: "acme", name: "Acme" });
    const escaped = await t.app.request(
      "/v1/tokens",
      bearer(secret, { method: "POST", body: { name: "escape", scopes: ["admin"], workspace: "ada" } }),
    );
    expect(escaped.status).toBe(404);
    const creates = await t.app.request(
      "/v1/workspaces",
      bearer(secret, { method: "POST", body: { slug: "other", name: "Other" } }),
    );
    expect(creates.status).toBe(403);
    const listed = await (await t.app.request("/v1/tokens", bearer(secret))).json();
    expect(listed.tokens.every((x: { workspace: { slug: string } | null }) => x.workspace?.slug === "acme")).toBe(true);
  });

  it("refuses bad token input, naming each field, and stores nothing", async () => {
    const before = (await t.database.db.select().from(apiTokens)).length;
    const res = await ada.request("/v1/tokens", {
      method: "POST",
      body: { name: "", scopes: ["mcp", "root"], expiresInDays: 999 },
    });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.details.map((d: { path: string }) => d.path).sort()).toEqual(["expiresInDays", "name", "scopes.1"]);
    expect(error.message).toContain("each scope must be one of");
    const unknownWs = await ada.request("/v1/tokens", {
      method: "POST",
      body: { name: "x", scopes: ["mcp"], workspace: "nope" },
    });
    expect(unknownWs.status).toBe(404);
    expect((await t.database.db.select().from(apiTokens)).length).toBe(before);
  });

  it("does not let one user see or revoke another's token", async () => {
    const bob = await TestUser.signUp(t.app, "bob@example.com");
    const { token } = await ada.createToken({ name: "private", scopes: ["mcp"] });
    const res = await bob.request(`/v1/tokens/${token.id}`, { method: "DELETE" });
    const missing = await bob.request("/v1/tokens/tok_01jzzzzzzzzzzzzzzzzzzzzzzz", { method: "DELETE" });
    expect(res.status).toBe(404);
    expect(missing.status).toBe(404);
    const a = (await res.json()).error;
    const b = (await missing.json()).error;
    expect(a.code).toBe(b.code);
    expect(a.message.replace(token.id, "ID")).toBe(b.message.replace("tok_01jzzzzzzzzzzzzzzzzzzzzzzz", "ID"));
    expect((await (await bob.request("/v1/tokens")).json()).tokens).toEqual([]);
  });

  it("refuses a malformed or foreign bearer token with 401 and a challenge", async () => {
    for (const header of ["Bearer nope", "Bearer lo_", "Basic abc", `Bearer lo_${"A".repeat(43)}`]) {
      const res = await t.app.request("/v1/me", { headers: { authorization: header } });
      expect(res.status).toBe(401);
      expect(res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await res.json()).error.code).toBe("unauthorized");
    }
  });
});

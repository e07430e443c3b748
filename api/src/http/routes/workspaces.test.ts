import { auditEvents, workspaces } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, TestUser } from "../../testing";

let t: TestApp;
let ada: TestUser;
let bob: TestUser;
beforeAll(async () => {
  t = await createTestApp();
  ada = await TestUser.signUp(t.app, "ada@example.com", "Ada");
  bob = await TestUser.signUp(t.app, "bob@example.com");
});
afterAll(() => t.close());

describe("workspaces", () => {
  it("creates a team with the caller as owner, audited", async () => {
    const res = await ada.request("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme Labs" } });
    expect(res.status).toBe(201);
    const team = await res.json();
    expect(team).toMatchObject({ slug: "acme", name: "Acme Labs", kind: "team", role: "owner" });
    expect(team.id).toMatch(/^ws_/);
    const [event] = await t.database.db.select().from(auditEvents).where(eq(auditEvents.workspaceId, team.id));
    expect(event).toMatchObject({ action: "workspace.created", actorUserId: expect.stringMatching(/^usr_/) });
    const list = await (await ada.request("/v1/workspaces")).json();
    expect(list.workspaces.map((w: { slug: string; kind: string }) => `${w.kind}:${w.slug}`)).toEqual([
      "personal:ada",
      "team:acme",
    ]);
    const me = await (await ada.request("/v1/me")).json();
    expect(me.workspaces).toHaveLength(2);
    expect(me.user.name).toBe("Ada");
  });

  it("refuses a taken slug with 409, and bad or reserved slugs with 400, storing nothing", async () => {
    const before = (await t.database.db.select().from(workspaces)).length;
    const taken = await bob.request("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Mine" } });
    expect(taken.status).toBe(409);
    expect((await taken.json()).error.details).toEqual([{ path: "slug", message: "already taken" }]);
    const personalTaken = await bob.request("/v1/workspaces", { method: "POST", body: { slug: "ada", name: "Mine" } });
    expect(personalTaken.status).toBe(409);
    for (const slug of ["Acme", "me", "a", "-x-", "x".repeat(40)]) {
      const res = await bob.request("/v1/workspaces", { method: "POST", body: { slug, name: "N" } });
      expect(res.status, slug).toBe(400);
      expect((await res.json()).error.details[0].path).toBe("slug");
    }
    expect((await t.database.db.select().from(workspaces)).length).toBe(before);
  });

  it("answers a workspace the caller is not in exactly like one that does not exist", async () => {
    const foreign = await bob.request("/v1/workspaces/acme");
    const missing = await bob.request("/v1/workspaces/no-such-team");
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    const a = (await foreign.json()).error;
    const b = (await missing.json()).error;
    expect(a.message.replace("acme", "X")).toBe(b.message.replace("no-such-team", "X"));
    expect((await bob.request("/v1/workspaces/me")).status).toBe(200);
    expect((await (await bob.request("/v1/workspaces/me")).json()).kind).toBe("personal");
  });

  it("requires the CSRF header on cookie writes", async () => {
    const res = await t.app.request("/v1/workspaces", {
      method: "POST",
      headers: { cookie: ada.cookie, "content-type": "application/json" },
      body: JSON.stringify({ slug: "sneaky", name: "Sneaky" }),
    });
    expect(res.status).toBe(403);
    expect((await t.database.db.select().from(workspaces).where(eq(workspaces.slug, "sneaky"))).length).toBe(0);
  });
});

describe("the HTTP surface", () => {
  it("serves health, the OpenAPI document, the reference page and JSON 404s", async () => {
    expect(await (await t.app.request("/healthz")).json()).toEqual({ status: "ok" });
    const doc = await (await t.app.request("/v1/openapi.json")).json();
    expect(doc.openapi).toBe("3.1.0");
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(["/v1/me", "/v1/tokens", "/v1/tokens/{id}", "/v1/workspaces/{ws}"]),
    );
    expect(doc.paths["/v1/tokens"].post.security).toEqual([{ bearerAuth: ["admin"] }, { sessionCookie: [] }]);
    expect(doc.components.schemas.CreateTokenInput.properties.scopes).toBeDefined();
    const page = await t.app.request("/v1/docs");
    expect(page.headers.get("content-type")).toContain("text/html");
    const html = await page.text();
    expect(html).toContain("/v1/tokens/{id}");
    expect(html).toContain("token scope <code>admin</code>");
    const missing = await t.app.request("/v1/nothing-here");
    expect(missing.status).toBe(404);
    expect((await missing.json()).error.message).toContain("/v1/openapi.json");
    expect(missing.headers.get("x-request-id")).toMatch(/^req_/);
    expect(missing.headers.get("x-frame-options")).toBe("DENY");
    expect(missing.headers.get("x-content-type-options")).toBe("nosniff");
  });
});

import { apiTokens, auditEvents, consoleSessions, memberships, users, workspaces } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, TestUser } from "../../testing";

let t: TestApp;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(() => t.close());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  t.app.request(path, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });

describe("sign-up", () => {
  it("creates the user, a personal workspace, an owner membership and audit events; sets the cookies", async () => {
    const res = await post("/v1/auth/signup", {
      email: " Ada@Example.com ",
      password: "correct horse battery",
      name: "Ada",
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body.user).toMatchObject({ email: "ada@example.com", name: "Ada" });
    expect(body.user.id).toMatch(/^usr_/);
    const cookies = res.headers.getSetCookie();
    expect(cookies.find((c) => c.startsWith("lo_session="))).toMatch(/HttpOnly/);
    expect(cookies.find((c) => c.startsWith("lo_session="))).toMatch(/SameSite=Lax/);
    expect(cookies.find((c) => c.startsWith("lo_csrf="))).not.toMatch(/HttpOnly/);

    const [ws] = await t.database.db
      .select()
      .from(workspaces)
      .innerJoin(memberships, eq(memberships.workspaceId, workspaces.id))
      .where(eq(memberships.userId, body.user.id));
    expect(ws?.workspaces).toMatchObject({ slug: "ada", kind: "personal" });
    expect(ws?.memberships.role).toBe("owner");
    const events = await t.database.db.select().from(auditEvents).where(eq(auditEvents.actorUserId, body.user.id));
    expect(events.map((e) => e.action).sort()).toEqual(["user.created", "workspace.created"]);
    const [row] = await t.database.db.select().from(users).where(eq(users.id, body.user.id));
    expect(row?.passwordHash).toMatch(/^scrypt\$/);
    expect(row?.passwordHash).not.toContain("correct horse");
  });

  it("refuses a duplicate email with 409 and stores nothing more", async () => {
    const before = await t.database.db.select().from(users);
    const res = await post("/v1/auth/signup", { email: "ADA@example.com", password: "another password" });
    expect(res.status).toBe(409);
    expect((await res.json()).error.code).toBe("conflict");
    expect(await t.database.db.select().from(users)).toHaveLength(before.length);
  });

  it("gives a second user with the same local part a distinct personal slug", async () => {
    const other = await TestUser.signUp(t.app, "ada@elsewhere.org");
    const me = await (await other.request("/v1/me")).json();
    expect(me.workspaces[0].slug).toMatch(/^ada-[a-z0-9x]{6}$/);
  });

  it("names every bad field, and unknown ones, with 400", async () => {
    const res = await post("/v1/auth/signup", { email: "nope", password: "short", admin: true });
    expect(res.status).toBe(400);
    const { error } = await res.json();
    expect(error.code).toBe("invalid_request");
    expect(error.details).toEqual(
      expect.arrayContaining([
        { path: "email", message: expect.stringContaining("address") },
        { path: "password", message: expect.stringContaining("at least 10") },
        { path: "admin", message: expect.stringContaining("unknown field") },
      ]),
    );
    const missing = await post("/v1/auth/signup", {});
    expect((await missing.json()).error.details.map((d: { path: string }) => d.path).sort()).toEqual([
      "email",
      "password",
    ]);
  });

  it("refuses a guessable password, saying why, and stores nothing", async () => {
    for (const [password, why] of [
      ["password123", "it is a commonly used password"],
      ["hopper2024", "it contains your name or email"],
    ] as const) {
      const res = await post("/v1/auth/signup", { email: "grace.hopper@example.com", password, name: "Grace Hopper" });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error.details).toEqual([{ path: "password", message: expect.stringContaining(why) }]);
      expect(body.error.details[0].message).toContain("password is too easy to guess");
    }
    const rows = await t.database.db.select().from(users).where(eq(users.email, "grace.hopper@example.com"));
    expect(rows).toEqual([]);
  });

  it("refuses malformed JSON, non-JSON and oversized bodies with distinct errors", async () => {
    const malformed = await t.app.request("/v1/auth/signup", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"email":',
    });
    expect(malformed.status).toBe(400);
    expect((await malformed.json()).error).toMatchObject({
      code: "invalid_json",
      message: expect.stringContaining("not valid JSON"),
    });

    const text = await t.app.request("/v1/auth/signup", {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "hello",
    });
    expect(text.status).toBe(415);

    const big = await post("/v1/auth/signup", { email: "big@example.com", password: "x".repeat(1024 * 1024 + 10) });
    expect(big.status).toBe(413);
    expect((await big.json()).error.code).toBe("payload_too_large");
    expect(await t.database.db.select().from(users).where(eq(users.email, "big@example.com"))).toHaveLength(0);
  });

  it("refuses a cross-site sign-up", async () => {
    const res = await post(
      "/v1/auth/signup",
      { email: "x@example.com", password: "correct horse battery" },
      { origin: "https://evil.example", host: "localhost" },
    );
    expect(res.status).toBe(403);
    expect((await res.json()).error.code).toBe("csrf_failed");
  });
});

describe("log-in and log-out", () => {
  let user: TestUser;
  beforeAll(async () => {
    user = await TestUser.signUp(t.app, "grace@example.com");
  });

  it("signs in with the right password, case-insensitively on the email", async () => {
    const res = await post("/v1/auth/login", { email: "GRACE@example.com", password: user.password });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.user.email).toBe("grace@example.com");
    expect(body.csrfToken).toMatch(/^[0-9a-f]{64}$/);
  });

  it("answers a wrong password and an unknown email identically", async () => {
    const wrong = await post(
      "/v1/auth/login",
      { email: "grace@example.com", password: "not the password" },
      { "x-test-address": "10.0.0.1" },
    );
    const unknown = await post(
      "/v1/auth/login",
      { email: "nobody@example.com", password: "not the password" },
      { "x-test-address": "10.0.0.1" },
    );
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    const a = (await wrong.json()).error;
    const b = (await unknown.json()).error;
    expect({ ...a, requestId: "" }).toEqual({ ...b, requestId: "" });
    expect(a.code).toBe("invalid_credentials");
  });

  it("signs out: the session stops working and the cookies are cleared", async () => {
    const session = await TestUser.signUp(t.app, "leaver@example.com");
    expect((await session.request("/v1/me")).status).toBe(200);
    const noCsrf = await t.app.request("/v1/auth/logout", { method: "POST", headers: { cookie: session.cookie } });
    expect(noCsrf.status).toBe(403);
    expect((await noCsrf.json()).error.code).toBe("csrf_failed");
    const out = await session.request("/v1/auth/logout", { method: "POST" });
    expect(out.status).toBe(204);
    expect(out.headers.getSetCookie().some((c) => c.startsWith("lo_session=;"))).toBe(true);
    expect((await session.request("/v1/me")).status).toBe(401);
  });
});

describe("sign-in rate limits", () => {
  it("stops an account after 10 attempts in the window, from any address, with Retry-After", async () => {
    await TestUser.signUp(t.app, "target@example.com");
    for (let i = 0; i < 10; i++) {
      const res = await post(
        "/v1/auth/login",
        { email: "target@example.com", password: `guess number ${i}` },
        { "x-test-address": `10.1.0.${i}` },
      );
      expect(res.status).toBe(401);
    }
    const blocked = await post(
      "/v1/auth/login",
      { email: "target@example.com", password: "correct horse battery" },
      { "x-test-address": "10.1.1.1" },
    );
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await blocked.json()).error.code).toBe("rate_limited");
  });

  it("stops an address after 50 attempts across accounts", async () => {
    for (let i = 0; i < 50; i++) {
      const res = await post(
        "/v1/auth/login",
        { email: `spray${i}@example.com`, password: "whatever password" },
        { "x-test-address": "10.9.9.9" },
      );
      expect(res.status).toBe(401);
    }
    const blocked = await post(
      "/v1/auth/login",
      { email: "spray-last@example.com", password: "whatever password" },
      { "x-test-address": "10.9.9.9" },
    );
    expect(blocked.status).toBe(429);
    const elsewhere = await post(
      "/v1/auth/login",
      { email: "spray-last@example.com", password: "whatever password" },
      { "x-test-address": "10.9.9.10" },
    );
    expect(elsewhere.status).toBe(401);
  });
});

describe("one-time setup link", () => {
  it("creates the first account once, and only while no account exists", async () => {
    const fresh = await createTestApp();
    try {
      const { issueSetupSecret } = await import("../../services/accounts/setup");
      expect((await (await fresh.app.request("/v1/auth/setup")).json()).required).toBe(true);
      const secret = await issueSetupSecret(fresh.database.db, new Date());
      expect(secret).toBeTruthy();
      const bad = await fresh.app.request("/v1/auth/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: "wrong", email: "first@example.com", password: "correct horse battery" }),
      });
      expect(bad.status).toBe(403);
      const body = JSON.stringify({ token: secret, email: "first@example.com", password: "correct horse battery" });
      const ok = await fresh.app.request("/v1/auth/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      expect(ok.status).toBe(201);
      expect(ok.headers.getSetCookie().some((c) => c.startsWith("lo_session="))).toBe(true);
      const again = await fresh.app.request("/v1/auth/setup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: body.replace("first@", "second@"),
      });
      expect(again.status).toBe(403);
      expect(await fresh.database.db.select().from(users)).toHaveLength(1);
      expect((await (await fresh.app.request("/v1/auth/setup")).json()).required).toBe(false);
      expect(await issueSetupSecret(fresh.database.db, new Date())).toBeNull();
    } finally {
      await fresh.close();
    }
  });
});

describe("logs", () => {
  it("never contain passwords, session secrets or token secrets", async () => {
    const user = await TestUser.signUp(t.app, "logcheck@example.com");
    const { secret } = await user.createToken({ name: "ci", scopes: ["admin"] });
    await t.app.request("/v1/me", { headers: { authorization: `Bearer ${secret}` } });
    const sessionSecret = user.cookie.match(/lo_session=([^;]+)/)?.[1] ?? "missing";
    const text = JSON.stringify(t.logs);
    expect(t.logs.length).toBeGreaterThan(5);
    for (const needle of [user.password, sessionSecret, secret, user.csrf]) expect(text).not.toContain(needle);
    const sessions = await t.database.db.select().from(consoleSessions);
    expect(JSON.stringify(sessions)).not.toContain(sessionSecret);
    const tokens = await t.database.db.select().from(apiTokens);
    expect(JSON.stringify(tokens)).not.toContain(secret);
  });
});

/**
 * The security suite: walks every operation in the OpenAPI document and checks that
 * - no credentials → 401 with the JSON error;
 * - a revoked token and an expired token → 401;
 * - a token lacking the route's scope → 403 insufficient_scope;
 * - another tenant's ids, and a token narrowed to another workspace, → the same 404 as a missing id.
 * New routes are covered by declaring them; nothing here names a route.
 */
import { bearer, createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveRef as resolveSchemaRef } from "../helpers/openapi";

type Json = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  op: Json;
  scope: string | null | "public";
  params: string[];
}

let t: TestApp;
let now = new Date("2026-11-29T12:00:00Z");
let doc: Json;
let ops: Operation[];
const ALL_SCOPES = ["mcp", "skills:read", "skills:write", "servers:read", "servers:write", "admin"];

const actor = {} as {
  user: TestUser;
  full: string;
  revoked: string;
  expired: string;
  narrowed: string;
  lacking: Map<string, string>;
  tokenId: string;
  userId: string;
};
const other = {} as { user: TestUser; teamSlug: string; tokenId: string; userId: string };

function operations(document: Json): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths as Record<string, Record<string, Json>>)) {
    for (const [method, op] of Object.entries(methods)) {
      const security = (op.security as Array<Record<string, string[]>> | undefined) ?? [];
      const scopes = security.flatMap((s) => s.bearerAuth ?? []);
      out.push({
        method: method.toUpperCase(),
        path,
        op,
        scope: security.length === 0 ? "public" : (scopes[0] ?? null),
        params: [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] ?? ""),
      });
    }
  }
  return out;
}

const resolveRef = (schema: unknown) => resolveSchemaRef(doc, schema);

/** A body that passes validation, built from the schema, so that auth and tenancy are what is tested. */
function sample(schema: unknown): unknown {
  const s = resolveRef(schema);
  if (s.example !== undefined) return s.example;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (Array.isArray(s.anyOf)) return sample(s.anyOf[0]);
  switch (s.type) {
    case "object": {
      const out: Json = {};
      for (const key of (s.required as string[] | undefined) ?? []) out[key] = sample((s.properties as Json)[key]);
      return out;
    }
    case "array":
      return [sample(s.items)];
    case "integer":
    case "number":
      return typeof s.minimum === "number" ? s.minimum : 1;
    case "boolean":
      return true;
    default:
      return "sample-value";
  }
}

function bodyFor(op: Operation): unknown {
  const schema = (
    ((op.op.requestBody as Json | undefined)?.content as Json | undefined)?.["application/json"] as Json | undefined
  )?.schema;
  return schema ? sample(schema) : undefined;
}

/** Path values: the actor's own, another tenant's, or ones that exist nowhere. */
function pathWith(op: Operation, values: Record<string, string>): string {
  return op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined)
      throw new Error(
        `the security suite has no value for path parameter {${name}} of ${op.method} ${op.path}; add one`,
      );
    return encodeURIComponent(value);
  });
}

const own = () => ({
  ws: "me",
  id: actor.tokenId,
  name: "sample-skill",
  slug: "sample-server",
  version: "1",
  tool: "sample-tool",
  user: actor.userId,
  device: "dev_actoractoractoractoractor",
});
const foreign = () => ({
  ws: other.teamSlug,
  id: other.tokenId,
  name: "sample-skill",
  slug: "sample-server",
  version: "1",
  tool: "sample-tool",
  user: other.userId,
  device: OTHER_DEVICE,
});
const missing = {
  ws: "no-such-workspace",
  id: "tok_01jzzzzzzzzzzzzzzzzzzzzzzz",
  name: "no-such-item",
  slug: "no-such-item",
  version: "999",
  tool: "no-such-tool",
  user: "usr_01jzzzzzzzzzzzzzzzzzzzzzzz",
  device: "dev_zzzzzzzzzzzzzzzzzzzzzzzzzz",
};
const OTHER_DEVICE = "dev_otherotherotherotherothe";

/** Required query parameters, sampled from their schemas, so validation passes and auth is what is tested. */
function withQuery(op: Operation, path: string): string {
  const params = ((op.op.parameters as Json[] | undefined) ?? []).filter((p) => p.in === "query" && p.required);
  if (params.length === 0) return path;
  const query = new URLSearchParams(params.map((p) => [String(p.name), String(sample(p.schema))]));
  return `${path}?${query}`;
}

function call(op: Operation, pathOnly: string, secret?: string) {
  const body = bodyFor(op);
  const path = withQuery(op, pathOnly);
  if (!secret) {
    return t.app.request(path, {
      method: op.method,
      ...(body !== undefined ? { headers: { "content-type": "application/json" }, body: JSON.stringify(body) } : {}),
    });
  }
  return t.app.request(path, bearer(secret, { method: op.method, ...(body !== undefined ? { body } : {}) }));
}

async function expectError(res: Response, status: number, code?: string) {
  const body = (await res.json()) as { error: { code: string; message: string; requestId: string } };
  expect(res.status, `${new URL(res.url || "http://x/").pathname} → ${JSON.stringify(body)}`).toBe(status);
  expect(body.error.requestId).toMatch(/^req_/);
  expect(body.error.message.length).toBeGreaterThan(10);
  if (code) expect(body.error.code).toBe(code);
  return body.error;
}

beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  doc = (await (await t.app.request("/v1/openapi.json")).json()) as Json;
  ops = operations(doc);

  actor.user = await TestUser.signUp(t.app, "actor@example.com");
  actor.userId = (await (await actor.user.request("/v1/me")).json()).user.id;
  const team = await actor.user.request("/v1/workspaces", {
    method: "POST",
    body: { slug: "actor-team", name: "Actor team" },
  });
  expect(team.status).toBe(201);
  const full = await actor.user.createToken({ name: "full", scopes: ALL_SCOPES });
  actor.full = full.secret;
  actor.tokenId = full.token.id;
  const revoked = await actor.user.createToken({ name: "revoked", scopes: ALL_SCOPES });
  expect((await actor.user.request(`/v1/tokens/${revoked.token.id}`, { method: "DELETE" })).status).toBe(204);
  actor.revoked = revoked.secret;
  actor.expired = (await actor.user.createToken({ name: "expired", scopes: ALL_SCOPES, expiresInDays: 1 })).secret;
  actor.narrowed = (
    await actor.user.createToken({ name: "narrowed", scopes: ALL_SCOPES, workspace: "actor-team" })
  ).secret;
  actor.lacking = new Map();
  for (const scope of ALL_SCOPES) {
    actor.lacking.set(
      scope,
      (await actor.user.createToken({ name: `no ${scope}`, scopes: ALL_SCOPES.filter((s) => s !== scope) })).secret,
    );
  }

  other.user = await TestUser.signUp(t.app, "other@example.com");
  other.userId = (await (await other.user.request("/v1/me")).json()).user.id;
  other.teamSlug = "other-team";
  expect(
    (await other.user.request("/v1/workspaces", { method: "POST", body: { slug: "other-team", name: "Other" } }))
      .status,
  ).toBe(201);
  other.tokenId = (await other.user.createToken({ name: "other's", scopes: ["admin"] })).token.id;
  // The other tenant really has what the probes name, so "not found" is about access, not existence.
  const server = await other.user.request(`/v1/workspaces/${other.teamSlug}/servers/import`, {
    method: "POST",
    body: { text: JSON.stringify({ mcpServers: { "sample-server": { url: "https://mcp.example.com/mcp" } } }) },
  });
  expect((await server.json()).imported).toHaveLength(1);
  const skill = await other.user.request(`/v1/workspaces/${other.teamSlug}/skills`, {
    method: "POST",
    body: { name: "sample-skill", description: "Another tenant's skill.", instructions: "Private." },
  });
  expect(skill.status).toBe(201);
  const synced = await other.user.request("/v1/devices/sync", {
    method: "POST",
    body: { device: OTHER_DEVICE, name: "their laptop", readers: [], written: { skill: 0, persona: 0 } },
  });
  expect(synced.status).toBe(200);

  // Two days on: the one-day token has expired, the others have no expiry.
  now = new Date(now.getTime() + 2 * 86_400_000);
});
afterAll(() => t.close());

describe("every route in the OpenAPI document", () => {
  it("has routes to walk, each declaring its security", () => {
    expect(ops.length).toBeGreaterThanOrEqual(10);
    for (const op of ops) expect(op.op.security, `${op.method} ${op.path}`).toBeDefined();
    expect(ops.filter((o) => o.scope === "public").map((o) => `${o.method} ${o.path}`)).toEqual(
      expect.arrayContaining(["GET /healthz", "POST /v1/auth/login"]),
    );
  });

  it("refuses a request without credentials with 401 and the JSON error", async () => {
    for (const op of ops.filter((o) => o.scope !== "public")) {
      const res = await call(op, pathWith(op, own()));
      const error = await expectError(res, 401, "unauthorized");
      expect(res.headers.get("www-authenticate"), `${op.method} ${op.path}`).toMatch(/^Bearer/);
      expect(error.message).toMatch(/sign in|token/i);
    }
  });

  it("refuses revoked and expired tokens with 401", async () => {
    for (const op of ops.filter((o) => o.scope !== "public")) {
      await expectError(await call(op, pathWith(op, own()), actor.revoked), 401, "unauthorized");
      await expectError(await call(op, pathWith(op, own()), actor.expired), 401, "unauthorized");
    }
  });

  it("refuses a token without the route's scope with 403", async () => {
    const scoped = ops.filter((o) => o.scope !== "public" && o.scope !== null);
    expect(scoped.length).toBeGreaterThan(0);
    for (const op of scoped) {
      const secret = actor.lacking.get(op.scope as string);
      expect(secret, `no token lacking ${op.scope}`).toBeDefined();
      const res = await call(op, pathWith(op, own()), secret);
      await expectError(res, 403, "insufficient_scope");
    }
  });

  it("answers another tenant's ids exactly like ids that do not exist", async () => {
    const withParams = ops.filter((o) => o.scope !== "public" && o.params.length > 0);
    expect(withParams.length).toBeGreaterThan(0);
    for (const op of withParams) {
      const label = `${op.method} ${op.path}`;
      const foreignValues = foreign();
      const a = await expectError(await call(op, pathWith(op, foreignValues), actor.full), 404, "not_found");
      const b = await expectError(await call(op, pathWith(op, missing), actor.full), 404, "not_found");
      const scrub = (message: string, values: Record<string, string>) =>
        Object.values(values).reduce((m, v) => m.split(v).join("<id>"), message);
      expect(scrub(a.message, foreignValues), label).toBe(scrub(b.message, missing));
    }
  });

  it("answers a token narrowed to another workspace like a missing workspace", async () => {
    for (const op of ops.filter((o) => o.scope !== "public" && o.params.includes("ws"))) {
      const res = await call(op, pathWith(op, { ...own(), ws: "me" }), actor.narrowed);
      await expectError(res, 404, "not_found");
    }
  });

  it("still lets the full token through every scoped route (the checks above are not vacuous)", async () => {
    for (const op of ops.filter((o) => o.scope !== "public" && o.method === "GET" && o.params.length === 0)) {
      const res = await call(op, op.path, actor.full);
      expect(res.status, `${op.method} ${op.path}`).toBe(200);
    }
  });
});

/**
 * Every role against every workspace route: the least role each one needs in a team. A route
 * missing from this table fails the suite, so a new route's rights are decided when it is added.
 * A role below the least is refused with 403 and changes nothing; an outsider gets the 404 of a
 * missing workspace; a role at or above it gets through (each write on a fresh team).
 */
type Role = "owner" | "admin" | "member";
const RANK: Record<Role | "outsider", number> = { outsider: 0, member: 1, admin: 2, owner: 3 };
const CONTENT = /^\/v1\/workspaces\/\{ws\}\/(skills|projects|servers)(\/|$)/;
const LEAST_ROLE: Record<string, Role> = {
  "GET /v1/workspaces/{ws}": "member",
  "DELETE /v1/workspaces/{ws}": "owner",
  "GET /v1/workspaces/{ws}/members": "member",
  "PATCH /v1/workspaces/{ws}/members/{user}": "admin",
  "DELETE /v1/workspaces/{ws}/members/{user}": "admin",
  "POST /v1/workspaces/{ws}/leave": "member",
  "POST /v1/workspaces/{ws}/transfer": "owner",
  "GET /v1/workspaces/{ws}/invites": "admin",
  "POST /v1/workspaces/{ws}/invites": "admin",
  "DELETE /v1/workspaces/{ws}/invites/{id}": "admin",
  "GET /v1/workspaces/{ws}/activity": "member",
  "GET /v1/workspaces/{ws}/activity/usage": "member",
};
const leastRole = (op: Operation): Role | undefined =>
  CONTENT.test(op.path) ? "member" : LEAST_ROLE[`${op.method} ${op.path}`];

describe("every role against every workspace route", () => {
  const people = {} as Record<"owner" | "owner2" | "admin" | "member" | "target" | "outsider", TestUser>;
  let teams = 0;

  async function team(): Promise<{ slug: string; target: string; invite: string }> {
    const slug = `roles-${++teams}`;
    expect((await people.owner.request("/v1/workspaces", { method: "POST", body: { slug, name: slug } })).status).toBe(
      201,
    );
    const roles: [keyof typeof people, Role][] = [
      ["owner2", "owner"],
      ["admin", "admin"],
      ["member", "member"],
      ["target", "member"],
    ];
    for (const [who, role] of roles) {
      const created = await people.owner.request(`/v1/workspaces/${slug}/invites`, {
        method: "POST",
        body: { email: people[who].email, role },
      });
      const { secret } = (await created.json()) as { secret: string };
      const accepted = await people[who].request("/v1/invites/accept", { method: "POST", body: { token: secret } });
      expect(accepted.status).toBe(200);
    }
    const pending = await people.owner.request(`/v1/workspaces/${slug}/invites`, {
      method: "POST",
      body: { email: "pending@example.com" },
    });
    const target = (await (await people.target.request("/v1/me")).json()).user.id as string;
    return { slug, target, invite: ((await pending.json()) as { invite: { id: string } }).invite.id };
  }

  function values(fixture: { slug: string; target: string; invite: string }) {
    return { ...own(), ws: fixture.slug, user: fixture.target, id: fixture.invite };
  }

  function send(op: Operation, who: TestUser, fixture: { slug: string; target: string; invite: string }) {
    const path = withQuery(op, pathWith(op, values(fixture)));
    const body = op.path.endsWith("/transfer") ? { userId: fixture.target } : bodyFor(op);
    return who.request(path, { method: op.method, ...(body !== undefined ? { body } : {}) });
  }

  beforeAll(async () => {
    for (const who of ["owner", "owner2", "admin", "member", "target", "outsider"] as const)
      people[who] = await TestUser.signUp(t.app, `${who}@roles.example.com`);
  });

  it("classifies every workspace route", () => {
    const unclassified = ops
      .filter((o) => o.params.includes("ws") && !leastRole(o))
      .map((o) => `${o.method} ${o.path}`);
    expect(unclassified, "add these routes to LEAST_ROLE").toEqual([]);
  });

  it("refuses roles below the least with 403, outsiders with 404, and lets the rest through", async () => {
    const shared = await team();
    const workspaceOps = ops.filter((o) => o.params.includes("ws"));
    expect(workspaceOps.length).toBeGreaterThan(20);
    for (const op of workspaceOps) {
      const least = leastRole(op) as Role;
      for (const role of ["outsider", "member", "admin", "owner"] as const) {
        const label = `${role} → ${op.method} ${op.path}`;
        const allowed = RANK[role] >= RANK[least];
        const fixture = allowed && op.method !== "GET" ? await team() : shared;
        const res = await send(op, people[role], fixture);
        const body = res.status === 204 ? null : ((await res.json()) as { error?: { code: string } });
        if (role === "outsider") {
          expect(res.status, label).toBe(404);
          expect(body?.error?.code, label).toBe("not_found");
        } else if (!allowed) {
          expect(res.status, `${label}: ${JSON.stringify(body)}`).toBe(403);
          expect(body?.error?.code, label).toBe("forbidden");
        } else {
          expect([401, 403], `${label}: ${JSON.stringify(body)}`).not.toContain(res.status);
          // Where every path value exists, "not found" would be a refusal in disguise.
          const exists = op.params.every((p) => p === "ws" || p === "user") || op.path.includes("/invites/");
          if (exists) expect(res.status, `${label}: ${JSON.stringify(body)}`).not.toBe(404);
        }
      }
    }
    // Nothing refused changed the shared team: its five members and their roles are intact.
    const members = (await (await people.owner.request(`/v1/workspaces/${shared.slug}/members`)).json()) as {
      members: { role: string }[];
    };
    expect(members.members.map((m) => m.role).sort()).toEqual(["admin", "member", "member", "owner", "owner"]);
  }, 120_000);
});

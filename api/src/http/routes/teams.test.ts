import { apiTokens, auditEvents, newId, oauthClients, oauthGrants, workspaceInvites, workspaces } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { bearer, createTestApp, type TestApp, TestUser } from "../../testing";

let t: TestApp;
let now = new Date("2026-11-29T12:00:00Z");
let ada: TestUser;
let bob: TestUser;
let cy: TestUser;
const ids: Record<string, string> = {};

async function json(res: Response, status: number) {
  const body = res.status === 204 ? null : await res.json();
  expect(res.status, JSON.stringify(body)).toBe(status);
  return body;
}

async function invite(by: TestUser, team: string, email: string, role = "member", expiresInDays?: number) {
  return json(
    await by.request(`/v1/workspaces/${team}/invites`, {
      method: "POST",
      body: { email, role, ...(expiresInDays ? { expiresInDays } : {}) },
    }),
    201,
  ) as Promise<{ invite: { id: string; status: string }; secret: string; url: string }>;
}

async function join(user: TestUser, team: string, email: string, role = "member", by = ada) {
  const created = await invite(by, team, email, role);
  now = new Date(now.getTime() + 1000);
  await json(await user.request("/v1/invites/accept", { method: "POST", body: { token: created.secret } }), 200);
}

beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  ada = await TestUser.signUp(t.app, "ada@example.com", "Ada");
  bob = await TestUser.signUp(t.app, "bob@example.com", "Bob");
  cy = await TestUser.signUp(t.app, "cy@example.com", "Cy");
  for (const [name, user] of [
    ["ada", ada],
    ["bob", bob],
    ["cy", cy],
  ] as const) {
    ids[name] = (await (await user.request("/v1/me")).json()).user.id;
  }
  await json(await ada.request("/v1/workspaces", { method: "POST", body: { slug: "acme", name: "Acme" } }), 201);
});
afterAll(() => t.close());

/** A signed-out visitor's look at an invite link: no cookie, an address of its own for the rate limit. */
function lookUp(token: string, address = "10.9.0.1") {
  return t.app.request("/v1/invites/lookup", {
    method: "POST",
    headers: { "content-type": "application/json", "x-test-address": address },
    body: JSON.stringify({ token }),
  });
}

describe("an invite link before sign-in", () => {
  it("tells only the team's name and the invited address, without a session", async () => {
    const created = await invite(ada, "acme", "Dee@Example.com", "admin");
    const body = await json(await lookUp(created.secret), 200);
    expect(body).toEqual({ team: { name: "Acme" }, email: "dee@example.com" });
    // A look settles nothing: the link still works for its address.
    const list = await json(await ada.request("/v1/workspaces/acme/invites"), 200);
    expect(list.invites.find((i: { id: string }) => i.id === created.invite.id)?.status).toBe("pending");
    await json(await ada.request(`/v1/workspaces/acme/invites/${created.invite.id}`, { method: "DELETE" }), 204);
  });

  it("answers an unknown, malformed, expired, revoked, used or declined link the same way", async () => {
    const expiring = await invite(ada, "acme", "eve@example.com", "member", 1);
    const revoked = await invite(ada, "acme", "fay@example.com");
    await json(await ada.request(`/v1/workspaces/acme/invites/${revoked.invite.id}`, { method: "DELETE" }), 204);
    const declined = await invite(ada, "acme", "cy@example.com");
    await json(await cy.request("/v1/invites/decline", { method: "POST", body: { token: declined.secret } }), 204);
    const used = await invite(ada, "acme", "cy@example.com");
    await json(await cy.request("/v1/invites/accept", { method: "POST", body: { token: used.secret } }), 200);
    await json(await ada.request(`/v1/workspaces/acme/members/${ids.cy}`, { method: "DELETE" }), 204);
    now = new Date(now.getTime() + 2 * 86_400_000);

    const tokens = {
      unknown: `loi_${"x".repeat(43)}`,
      malformed: "not-an-invite",
      expired: expiring.secret,
      revoked: revoked.secret,
      declined: declined.secret,
      used: used.secret,
    };
    const answers = new Set<string>();
    for (const [why, token] of Object.entries(tokens)) {
      const res = await lookUp(token, `10.9.1.${answers.size}`);
      const body = await json(res, 404);
      expect(body.error.code, why).toBe("not_found");
      expect(body.error.message, why).not.toMatch(/acme|eve@|fay@|cy@/i);
      const { requestId: _, ...rest } = body.error;
      answers.add(JSON.stringify(rest));
    }
    expect([...answers]).toHaveLength(1);
    expect(JSON.parse([...answers][0] ?? "{}").message).toContain("ask the team for a new invite");
  });

  it("refuses a malformed body saying what is wrong, and a request from another site", async () => {
    const empty = await json(
      await t.app.request("/v1/invites/lookup", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({}),
      }),
      400,
    );
    expect(empty.error.details).toEqual([{ path: "token", message: expect.stringContaining("#token=") }]);
    const foreign = await t.app.request("http://localhost/v1/invites/lookup", {
      method: "POST",
      headers: { "content-type": "application/json", origin: "https://evil.example" },
      body: JSON.stringify({ token: "loi_x" }),
    });
    expect(foreign.status).toBe(403);
  });

  it("stops an address after 30 looks in 15 minutes, with Retry-After", async () => {
    for (let i = 0; i < 30; i++)
      expect((await lookUp(`loi_${String(i).padStart(43, "0")}`, "10.9.2.1")).status).toBe(404);
    const blocked = await lookUp(`loi_${"y".repeat(43)}`, "10.9.2.1");
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await blocked.json()).error.code).toBe("rate_limited");
    // Another address is not held back.
    expect((await lookUp(`loi_${"y".repeat(43)}`, "10.9.2.2")).status).toBe(404);
  });
});

describe("invites", () => {
  it("are single-use links holding only a hash, that the invited address accepts", async () => {
    const created = await invite(ada, "acme", "Bob@Example.com", "admin");
    expect(created.url).toMatch(/^http:\/\/localhost\/invite\/#token=loi_[0-9A-Za-z]{43}$/);
    expect(created.invite).toMatchObject({ email: "bob@example.com", role: "admin", status: "pending" });
    const [stored] = await t.database.db
      .select()
      .from(workspaceInvites)
      .where(eq(workspaceInvites.id, created.invite.id));
    expect(JSON.stringify(stored)).not.toContain(created.secret);

    const preview = await json(
      await bob.request("/v1/invites/preview", { method: "POST", body: { token: created.secret } }),
      200,
    );
    expect(preview).toMatchObject({ team: { slug: "acme", name: "Acme" }, role: "admin", status: "pending" });
    expect(preview.invitedBy.email).toBe("ada@example.com");

    // Another account cannot use it, and trying does not use it up.
    const wrong = await json(
      await cy.request("/v1/invites/accept", { method: "POST", body: { token: created.secret } }),
      403,
    );
    expect(wrong.error.message).toContain("bob@example.com");

    const accepted = await json(
      await bob.request("/v1/invites/accept", { method: "POST", body: { token: created.secret } }),
      200,
    );
    expect(accepted.workspace).toMatchObject({ slug: "acme", role: "admin", kind: "team" });
    const again = await json(
      await bob.request("/v1/invites/accept", { method: "POST", body: { token: created.secret } }),
      409,
    );
    expect(again.error.message).toContain("already used");
    const members = await json(await ada.request("/v1/workspaces/acme/members"), 200);
    expect(members.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`)).toEqual([
      "ada@example.com:owner",
      "bob@example.com:admin",
    ]);
  });

  it("expire, and an expired, revoked or declined link changes nothing", async () => {
    const expiring = await invite(ada, "acme", "cy@example.com", "member", 1);
    now = new Date(now.getTime() + 2 * 86_400_000);
    const expired = await json(
      await cy.request("/v1/invites/accept", { method: "POST", body: { token: expiring.secret } }),
      409,
    );
    expect(expired.error.message).toContain("expired");

    const revoked = await invite(ada, "acme", "cy@example.com");
    await json(await bob.request(`/v1/workspaces/acme/invites/${revoked.invite.id}`, { method: "DELETE" }), 204);
    expect(
      (await json(await cy.request("/v1/invites/accept", { method: "POST", body: { token: revoked.secret } }), 409))
        .error.message,
    ).toContain("revoked");

    const declined = await invite(ada, "acme", "cy@example.com");
    await json(await cy.request("/v1/invites/decline", { method: "POST", body: { token: declined.secret } }), 204);
    await json(await cy.request("/v1/invites/accept", { method: "POST", body: { token: declined.secret } }), 409);

    const unknown = await json(
      await cy.request("/v1/invites/accept", { method: "POST", body: { token: `loi_${"x".repeat(43)}` } }),
      404,
    );
    expect(unknown.error.message).toContain("not known");
    const members = await json(await ada.request("/v1/workspaces/acme/members"), 200);
    expect(members.members).toHaveLength(2);
    const list = await json(await ada.request("/v1/workspaces/acme/invites"), 200);
    expect(list.invites.map((i: { status: string }) => i.status)).toEqual(
      expect.arrayContaining(["accepted", "expired", "revoked", "declined"]),
    );
  });

  it("inviting an address again replaces its pending link; a member's address is refused", async () => {
    const first = await invite(ada, "acme", "cy@example.com");
    const second = await invite(ada, "acme", "cy@example.com");
    await json(await cy.request("/v1/invites/accept", { method: "POST", body: { token: first.secret } }), 409);
    const member = await json(
      await ada.request("/v1/workspaces/acme/invites", { method: "POST", body: { email: "bob@example.com" } }),
      409,
    );
    expect(member.error.details).toEqual([{ path: "email", message: "already a member" }]);
    await json(await cy.request("/v1/invites/accept", { method: "POST", body: { token: second.secret } }), 200);
  });

  it("are refused to members, and owner invites to admins", async () => {
    const byMember = await json(
      await cy.request("/v1/workspaces/acme/invites", { method: "POST", body: { email: "dee@example.com" } }),
      403,
    );
    expect(byMember.error.message).toContain("Only owners and admins");
    const ownerByAdmin = await json(
      await bob.request("/v1/workspaces/acme/invites", {
        method: "POST",
        body: { email: "dee@example.com", role: "owner" },
      }),
      403,
    );
    expect(ownerByAdmin.error.message).toContain("Only an owner");
    await json(await cy.request("/v1/workspaces/acme/invites"), 403);
  });
});

describe("roles and ownership", () => {
  it("never lets the last owner leave or be demoted", async () => {
    const leave = await json(await ada.request("/v1/workspaces/acme/leave", { method: "POST" }), 403);
    expect(leave.error.message).toContain("last owner");
    const demote = await json(
      await ada.request(`/v1/workspaces/acme/members/${ids.ada}`, { method: "PATCH", body: { role: "admin" } }),
      403,
    );
    expect(demote.error.message).toContain("at least one owner");
    const byAdmin = await json(await bob.request(`/v1/workspaces/acme/members/${ids.ada}`, { method: "DELETE" }), 403);
    expect(byAdmin.error.message).toContain("Only an owner");
    const roles = (await json(await ada.request("/v1/workspaces/acme/members"), 200)).members.map(
      (m: { role: string }) => m.role,
    );
    expect(roles.filter((r: string) => r === "owner")).toHaveLength(1);
  });

  it("changes roles within the rules, and transfers ownership", async () => {
    const promoted = await json(
      await bob.request(`/v1/workspaces/acme/members/${ids.cy}`, { method: "PATCH", body: { role: "admin" } }),
      200,
    );
    expect(promoted).toMatchObject({ email: "cy@example.com", role: "admin" });
    await json(
      await bob.request(`/v1/workspaces/acme/members/${ids.cy}`, { method: "PATCH", body: { role: "member" } }),
      200,
    );
    await json(await cy.request("/v1/workspaces/acme/transfer", { method: "POST", body: { userId: ids.bob } }), 403);
    await json(await ada.request("/v1/workspaces/acme/transfer", { method: "POST", body: { userId: ids.bob } }), 204);
    const members = await json(await ada.request("/v1/workspaces/acme/members"), 200);
    expect(members.members.map((m: { email: string; role: string }) => `${m.email}:${m.role}`)).toEqual([
      "ada@example.com:admin",
      "bob@example.com:owner",
      "cy@example.com:member",
    ]);
    const bad = await json(
      await bob.request(`/v1/workspaces/acme/members/${ids.cy}`, { method: "PATCH", body: { role: "boss" } }),
      400,
    );
    expect(bad.error.details[0].message).toContain("owner, admin, member");
  });

  it("removes a member at once, revoking their tokens and connected apps narrowed to the team", async () => {
    const narrowed = await cy.createToken({ name: "acme only", scopes: ["mcp", "skills:read"], workspace: "acme" });
    // A connected app Cy allowed for the team alone (the consent page's workspace choice).
    const [acme] = await t.database.db.select().from(workspaces).where(eq(workspaces.slug, "acme"));
    const clientRef = newId("oauthClient", now.getTime());
    await t.database.db.insert(oauthClients).values({
      id: clientRef,
      clientId: "ocl_test",
      kind: "dynamic",
      name: "Claude",
      redirectUris: ["https://claude.ai/api/mcp/auth_callback"],
      applicationType: "web",
    });
    const grantId = newId("oauthGrant", now.getTime());
    await t.database.db.insert(oauthGrants).values({
      id: grantId,
      userId: ids.cy ?? "",
      workspaceId: acme?.id ?? "",
      clientRef,
      resource: "http://localhost/mcp",
      scopes: ["mcp"],
    });
    const wide = await cy.createToken({ name: "everything", scopes: ["skills:read"] });
    await json(await t.app.request("/v1/workspaces/acme/skills", bearer(narrowed.secret)), 200);
    await json(await ada.request(`/v1/workspaces/acme/members/${ids.cy}`, { method: "DELETE" }), 204);
    const refused = await json(await t.app.request("/v1/workspaces/acme/skills", bearer(narrowed.secret)), 401);
    expect(refused.error.message).toContain("revoked");
    await json(await t.app.request("/v1/workspaces/acme/skills", bearer(wide.secret)), 404);
    await json(await t.app.request("/v1/workspaces/me/skills", bearer(wide.secret)), 200);
    const [token] = await t.database.db.select().from(apiTokens).where(eq(apiTokens.id, narrowed.token.id));
    expect(token?.revokedAt).not.toBeNull();
    const [grant] = await t.database.db.select().from(oauthGrants).where(eq(oauthGrants.id, grantId));
    expect(grant).toMatchObject({ revokedReason: "membership_ended", revokedAt: expect.any(Date) });
  });

  it("lets only owners delete a team, recorded in the owner's own log", async () => {
    await json(await ada.request("/v1/workspaces/acme", { method: "DELETE" }), 403);
    await json(await bob.request("/v1/workspaces/me", { method: "DELETE" }), 403);
    await json(await bob.request("/v1/workspaces/acme", { method: "DELETE" }), 204);
    await json(await ada.request("/v1/workspaces/acme"), 404);
    const events = await json(await bob.request("/v1/workspaces/me/activity?kind=workspace"), 200);
    expect(events.events[0]).toMatchObject({ action: "workspace.deleted", item: "acme" });
  });
});

describe("activity", () => {
  it("lists a workspace's events newest first, filtered and paginated", async () => {
    await json(await ada.request("/v1/workspaces", { method: "POST", body: { slug: "beta", name: "Beta" } }), 201);
    now = new Date(now.getTime() + 1000);
    await join(bob, "beta", "bob@example.com", "member");
    for (const name of ["one", "two", "three"]) {
      now = new Date(now.getTime() + 60_000);
      await json(
        await bob.request("/v1/workspaces/beta/skills", {
          method: "POST",
          body: { name, description: `Skill ${name}.`, instructions: "Do it." },
        }),
        201,
      );
    }
    const all = await json(await ada.request("/v1/workspaces/beta/activity"), 200);
    expect(all.events.map((e: { action: string }) => e.action)).toEqual([
      "skill.created",
      "skill.created",
      "skill.created",
      "member.joined",
      "invite.created",
      "workspace.created",
    ]);
    expect(all.events[0]).toMatchObject({
      kind: "change",
      item: "three",
      actor: { email: "bob@example.com", name: "Bob" },
      data: { name: "three", version: 1 },
      call: null,
    });

    const byBob = await json(await ada.request("/v1/workspaces/beta/activity?actor=bob@example.com"), 200);
    expect(byBob.events).toHaveLength(4);
    const byId = await json(await ada.request(`/v1/workspaces/beta/activity?actor=${ids.ada}`), 200);
    expect(byId.events.map((e: { action: string }) => e.action)).toEqual(["invite.created", "workspace.created"]);
    const skillsOnly = await json(await ada.request("/v1/workspaces/beta/activity?kind=skill"), 200);
    expect(skillsOnly.events).toHaveLength(3);
    const item = await json(await ada.request("/v1/workspaces/beta/activity?item=two"), 200);
    expect(item.events.map((e: { item: string }) => e.item)).toEqual(["two"]);
    const invitee = await json(await ada.request("/v1/workspaces/beta/activity?item=bob@example.com"), 200);
    expect(invitee.events.map((e: { action: string }) => e.action)).toEqual(["member.joined", "invite.created"]);
    const since = all.events[1].at;
    const recent = await json(await ada.request(`/v1/workspaces/beta/activity?from=${encodeURIComponent(since)}`), 200);
    expect(recent.events.map((e: { item: string }) => e.item)).toEqual(["three", "two"]);
    const before = await json(
      await ada.request(`/v1/workspaces/beta/activity?kind=skill&to=${encodeURIComponent(since)}`),
      200,
    );
    expect(before.events.map((e: { item: string }) => e.item)).toEqual(["one"]);

    const first = await json(await ada.request("/v1/workspaces/beta/activity?limit=4"), 200);
    expect(first.events).toHaveLength(4);
    const second = await json(
      await ada.request(`/v1/workspaces/beta/activity?limit=4&cursor=${first.nextCursor}`),
      200,
    );
    expect(second.events.map((e: { action: string }) => e.action)).toEqual(["invite.created", "workspace.created"]);
    expect(second.nextCursor).toBeNull();
    const bad = await json(await ada.request("/v1/workspaces/beta/activity?cursor=nope"), 400);
    expect(bad.error.details[0].path).toBe("cursor");
    const badTime = await json(await ada.request("/v1/workspaces/beta/activity?from=yesterday"), 400);
    expect(badTime.error.details[0].message).toContain("ISO 8601");
  });

  it("never shows another workspace's events, nor a cursor from it", async () => {
    const personal = await json(await ada.request("/v1/workspaces/me/activity?limit=1"), 200);
    const mine = await json(await ada.request("/v1/workspaces/me/activity?limit=200"), 200);
    const beta = await json(await ada.request("/v1/workspaces/beta/activity?limit=200"), 200);
    const betaIds = new Set(beta.events.map((e: { id: string }) => e.id));
    expect(mine.events.some((e: { id: string }) => betaIds.has(e.id))).toBe(false);
    // Cy is in neither: Ada's team is a 404, like a team that does not exist.
    const probe = await json(await cy.request("/v1/workspaces/beta/activity"), 404);
    const missing = await json(await cy.request("/v1/workspaces/nope/activity"), 404);
    expect(probe.error.message.replace("beta", "x")).toBe(missing.error.message.replace("nope", "x"));
    // A cursor of Ada's personal log does not page through the team's.
    if (personal.nextCursor)
      await json(await ada.request(`/v1/workspaces/beta/activity?cursor=${personal.nextCursor}`), 400);
    const own = await t.database.db
      .select()
      .from(auditEvents)
      .where(eq(auditEvents.actorUserId, ids.cy ?? ""));
    expect(own.length).toBeGreaterThan(0);
    const cyView = await json(await cy.request("/v1/workspaces/me/activity?limit=200"), 200);
    expect(cyView.events.every((e: { actor: { email: string } | null }) => e.actor?.email !== "ada@example.com")).toBe(
      true,
    );
  });

  it("summarizes usage per day, empty for a workspace without calls", async () => {
    const usage = await json(await ada.request("/v1/workspaces/beta/activity/usage?days=7"), 200);
    expect(usage.days).toHaveLength(7);
    expect(usage.to).toBe(now.toISOString().slice(0, 10));
    expect(usage.outcomes).toEqual({ ok: 0, error: 0, tool_error: 0, not_active: 0, plan_refused: 0, withheld: 0 });
    await json(await ada.request("/v1/workspaces/beta/activity/usage?days=91"), 400);
  });
});

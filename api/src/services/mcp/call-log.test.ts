import { auditEvents } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../logger";
import { createTestApp, type TestApp, TestUser } from "../../testing";
import { batchingRecorder, immediateRecorder, type McpCall } from "./call-log";

let t: TestApp;
let workspaceId: string;
let userId: string;

beforeAll(async () => {
  t = await createTestApp();
  const ada = await TestUser.signUp(t.app, "ada@example.com");
  const me = (await (await ada.request("/v1/me")).json()) as { user: { id: string }; workspaces: { id: string }[] };
  userId = me.user.id;
  workspaceId = me.workspaces[0]?.id ?? "";
});
afterAll(() => t?.close());

const call = (requestId: string, over: Partial<McpCall> = {}): McpCall => ({
  workspaceId,
  userId,
  tokenId: null,
  requestId,
  at: new Date("2026-11-30T10:00:00.123Z"),
  method: "tools/call",
  target: "bench-echo_echo",
  item: null,
  outcome: "ok",
  ms: 1.25,
  client: 'Claude "Code" 2.1 — ünïcode',
  mode: "agent",
  project: "/home/ada/app",
  server: "bench-echo",
  endpoint: null,
  ...over,
});

/** The rows recorded for these request ids, as the activity log reads them (ids aside). */
async function rows(...requestIds: string[]) {
  const found = [];
  for (const requestId of requestIds) {
    const [r] = await t.database.db.select().from(auditEvents).where(eq(auditEvents.requestId, requestId));
    if (r) {
      const { id: _, requestId: __, ...rest } = r;
      found.push(rest);
    }
  }
  return found;
}

describe("the batching call recorder", () => {
  it("writes rows identical to the immediate recorder's, in one batch on flush", async () => {
    const logger = memoryLogger();
    const recorder = batchingRecorder(t.database.db, logger, { intervalMs: 60_000 });
    const variants: Array<Partial<McpCall>> = [
      {},
      { tokenId: "tok_1", item: "notes", outcome: "error", server: null, endpoint: "end_1", mode: "plan" },
      { method: "resources/read", target: "skill://notes/SKILL.md", client: null, project: null },
    ];
    for (const [i, v] of variants.entries()) {
      await recorder.record(t.database.db, call(`req_batch_${i}`, v));
      await immediateRecorder.record(t.database.db, call(`req_once_${i}`, v));
    }
    // Nothing yet: the batch waits for its interval or a flush.
    expect(await rows("req_batch_0")).toEqual([]);
    await recorder.flush();
    const batched = await rows(...variants.map((_, i) => `req_batch_${i}`));
    expect(batched).toHaveLength(3);
    expect(batched).toEqual(await rows(...variants.map((_, i) => `req_once_${i}`)));
    expect(batched[0]?.data).toMatchObject({ client: 'Claude "Code" 2.1 — ünïcode', ms: 1.25, server: "bench-echo" });
    expect(batched[0]?.createdAt.toISOString()).toBe("2026-11-30T10:00:00.123Z");
    expect(logger.entries).toEqual([]);
  });

  it("writes on its own once the interval passes, and at once at the batch's size", async () => {
    const recorder = batchingRecorder(t.database.db, memoryLogger(), { intervalMs: 20, maxBatch: 2 });
    await recorder.record(t.database.db, call("req_timer"));
    // Written by the recorder's own timer: waited for, within a bound a loaded machine meets.
    for (let waited = 0; waited < 5_000 && (await rows("req_timer")).length === 0; waited += 25)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(await rows("req_timer")).toHaveLength(1);
    const slow = batchingRecorder(t.database.db, memoryLogger(), { intervalMs: 60_000, maxBatch: 2 });
    await slow.record(t.database.db, call("req_size_0"));
    await slow.record(t.database.db, call("req_size_1"));
    expect(await rows("req_size_0", "req_size_1")).toHaveLength(2);
  });

  it("logs a batch it could not write, without the rows' data, and goes on", async () => {
    const logger = memoryLogger();
    const recorder = batchingRecorder(t.database.db, logger, { intervalMs: 60_000 });
    await recorder.record(t.database.db, call("req_orphan", { workspaceId: "ws_missing" }));
    await recorder.flush();
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: "error", msg: "could not record MCP calls", count: 1 }),
    ]);
    expect(JSON.stringify(logger.entries)).not.toContain("bench-echo");
    await recorder.record(t.database.db, call("req_after"));
    await recorder.flush();
    expect(await rows("req_after")).toHaveLength(1);
  });
});

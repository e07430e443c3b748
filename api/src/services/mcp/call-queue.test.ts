import { auditEvents, connectPostgres, mcpUsageDaily } from "@loadout/db";
import { eq, inArray } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryLogger } from "../../logger";
import { createTestApp, type TestApp, TestUser } from "../../testing";
import { type McpCall, rowJson } from "./call-log";
import { type QueuedMessage, queueRecorder, RETRY_DELAY_SECONDS, writeQueuedCalls } from "./call-queue";

/**
 * The consumer's side of the call-log Queue on a real database (the Queue itself, in workerd:
 * test/src/worker/call-log-queue.test.ts). Messages are plain objects that note how they were settled.
 */

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
  target: `queue-tool-${requestId}`,
  item: null,
  outcome: "ok",
  ms: 1.5,
  client: "queue-client 1",
  mode: "agent",
  project: null,
  ...over,
});

interface Delivered extends QueuedMessage {
  settled: "acked" | { retried: number | undefined } | undefined;
}
const delivered = (body: unknown): Delivered => {
  const message: Delivered = {
    body,
    settled: undefined,
    ack: () => {
      message.settled = "acked";
    },
    retry: (options) => {
      message.settled = { retried: options?.delaySeconds };
    },
  };
  return message;
};

const rowsOf = (...requestIds: string[]) =>
  t.database.db.select().from(auditEvents).where(inArray(auditEvents.requestId, requestIds));

const countOf = async (tool: string) =>
  (await t.database.db.select().from(mcpUsageDaily).where(eq(mcpUsageDaily.tool, tool))).map((r) => r.calls);

describe("the call-log Queue's consumer", () => {
  it("writes a batch delivered twice once, counts it once, and acks both deliveries", async () => {
    const bodies = [
      rowJson(call("req_q1")),
      rowJson(call("req_q2")),
      rowJson(call("req_q2b", { target: "queue-tool-req_q2" })),
    ];
    for (let delivery = 0; delivery < 2; delivery++) {
      const messages = bodies.map(delivered);
      await writeQueuedCalls(t.database.db, messages, memoryLogger());
      expect(messages.map((m) => m.settled)).toEqual(["acked", "acked", "acked"]);
    }
    expect(await rowsOf("req_q1", "req_q2", "req_q2b")).toHaveLength(3);
    expect(await countOf("queue-tool-req_q1")).toEqual([1]);
    expect(await countOf("queue-tool-req_q2")).toEqual([2]);
  });

  it("acks what is no call row, and a call of a workspace that is gone, and writes the rest", async () => {
    const logger = memoryLogger();
    const messages = [
      delivered("not json"),
      delivered({ id: "evt_1" }),
      delivered(rowJson(call("req_gone", { workspaceId: "ws_gone" }))),
      delivered(rowJson(call("req_kept"))),
    ];
    await writeQueuedCalls(t.database.db, messages, logger);
    expect(messages.map((m) => m.settled)).toEqual(["acked", "acked", "acked", "acked"]);
    expect(await rowsOf("req_gone", "req_kept")).toMatchObject([{ requestId: "req_kept", workspaceId }]);
    expect(logger.entries.map((e) => e.msg)).toEqual([
      "dropped a call-log message that is not a call row",
      "dropped a call-log message that is not a call row",
      "dropped an MCP call of a deleted workspace",
    ]);
    // The rows' data stays out of the log.
    expect(JSON.stringify(logger.entries)).not.toContain("queue-client");
  });

  it("retries every message, after a delay, while the database is out of reach", async () => {
    const away = connectPostgres("postgres://postgres@127.0.0.1:1/none", { max: 1 });
    const logger = memoryLogger();
    try {
      const messages = [delivered(rowJson(call("req_away1"))), delivered(rowJson(call("req_away2")))];
      await writeQueuedCalls(away.db, messages, logger);
      expect(messages.map((m) => m.settled)).toEqual([
        { retried: RETRY_DELAY_SECONDS },
        { retried: RETRY_DELAY_SECONDS },
      ]);
      expect(logger.entries).toEqual([
        expect.objectContaining({
          level: "warn",
          msg: "could not record MCP calls; they will be delivered again",
          count: 2,
        }),
      ]);
    } finally {
      await away.close();
    }
  });
});

describe("the Queue recorder", () => {
  it("sends a call's row, its event id made before sending", async () => {
    const sent: string[] = [];
    const recorder = queueRecorder(
      {
        async send(body) {
          sent.push(body);
        },
      },
      memoryLogger(),
    );
    await recorder.record(t.database.db, call("req_sent"));
    expect(sent).toHaveLength(1);
    expect(JSON.parse(sent[0] ?? "")).toMatchObject({ id: expect.stringMatching(/^evt_/), requestId: "req_sent" });
    // Nothing is written by the request itself.
    expect(await rowsOf("req_sent")).toEqual([]);
  });

  it("writes the row itself when the Queue refuses it", async () => {
    const logger = memoryLogger();
    const recorder = queueRecorder(
      {
        async send() {
          throw new Error("Queue send failed: queue is overloaded");
        },
      },
      logger,
    );
    await recorder.record(t.database.db, call("req_unsent"));
    expect(await rowsOf("req_unsent")).toHaveLength(1);
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: "warn", msg: "could not queue an MCP call; writing it directly" }),
    ]);
  });
});

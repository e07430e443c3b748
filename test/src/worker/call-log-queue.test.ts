/**
 * The MCP call log on Workers, through a Cloudflare Queue, in workerd: the api Worker sends each
 * call's row to its `CALL_LOG` producer after the answer, and its own `queue()` handler writes the
 * delivered batch in one idempotent statement (services/mcp/call-queue.ts). Miniflare runs the
 * queue (producer, consumer, retries) beside local Hyperdrive to the machine's Postgres.
 */
import path from "node:path";
import { migratePostgresDatabase } from "@loadout/db/open";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { Miniflare, type RequestInit as WorkerRequestInit } from "miniflare";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { unstable_readConfig } from "wrangler";
import { signUpAccount } from "../helpers/account";
import {
  assetsOptions,
  buildWorkerIfStale,
  disposeAfterDatabase,
  scratchDatabase,
  scriptPath,
  wranglerConfigPath,
} from "./harness";

const config = unstable_readConfig({ config: wranglerConfigPath });
const producer = config.queues.producers?.find((p: { binding: string }) => p.binding === "CALL_LOG");
const queueName = producer?.queue ?? "";

/**
 * Test-only entry in front of the real Worker. After `/__test/redeliver-next`, the next delivery of
 * the call-log queue is written by the real handler as usual, but its acks are withheld and the
 * batch handed back (`retryAll`), as when a consumer's acknowledgement is lost: the queue then
 * delivers the same messages again, to the real handler. Each delivery is logged with its attempt.
 */
const redeliveringEntry = `
import worker from "./worker.js";

let redeliverNext = false;

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/__test/redeliver-next") {
      redeliverNext = true;
      return new Response(null, { status: 204 });
    }
    return worker.fetch(request, env, ctx);
  },
  async queue(batch, env, ctx) {
    console.log("call-log delivery: " + batch.messages.length + " message(s), attempt " + batch.messages[0]?.attempts);
    if (!redeliverNext) return worker.queue(batch, env, ctx);
    redeliverNext = false;
    const unacked = batch.messages.map((m) => ({ id: m.id, body: m.body, attempts: m.attempts, ack() {}, retry() {} }));
    await worker.queue({ queue: batch.queue, messages: unacked, ackAll() {}, retryAll() {} }, env, ctx);
    batch.retryAll({ delaySeconds: 0 });
  },
};
`;

let database: { url: string; drop(): Promise<void> } | undefined;
let sql: postgres.Sql | undefined;
let mf: Miniflare | undefined;
/** The api Worker without the CALL_LOG binding. */
let plain: Miniflare | undefined;
const logs: string[] = [];

beforeAll(async () => {
  buildWorkerIfStale();
  database = await scratchDatabase("loadout_q");
  await migratePostgresDatabase(database.url);
  sql = postgres(database.url, { max: 1, onnotice: () => {} });
  const hyperdrive = new URL(database.url);
  if (!hyperdrive.password) hyperdrive.password = "unused";
  mf = startApi(hyperdrive.toString(), true);
  // The same Worker deployed without the Queue, on the same database.
  plain = startApi(hyperdrive.toString(), false);
  await Promise.all([mf.ready, plain.ready]);
});

function startApi(hyperdrive: string, withQueue: boolean): Miniflare {
  return new Miniflare({
    modules: [
      {
        type: "ESModule",
        path: path.join(path.dirname(scriptPath), "call-log-queue-entry.js"),
        contents: redeliveringEntry,
      },
      { type: "ESModule", path: scriptPath },
    ],
    modulesRoot: path.dirname(scriptPath),
    compatibilityDate: config.compatibility_date ?? "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    cf: false,
    hyperdrives: { HYPERDRIVE: hyperdrive },
    bindings: { LOADOUT_SECRET_KEY: "queue-test-secret-key-0123456789abcdef", LOADOUT_INSECURE_COOKIES: "1" },
    ...assetsOptions(),
    ...(withQueue
      ? {
          queueProducers: { CALL_LOG: { queueName } },
          // Production's consumer, but for its retry delay (30 s): a retried row comes back within a second here.
          queueConsumers: { [queueName]: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 10, retryDelay: 1 } },
        }
      : {}),
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      logs.push(`${level}: ${message}`);
    },
  });
}

beforeEach(({ onTestFailed }) => {
  const from = logs.length;
  onTestFailed(() => console.log(`Worker console:\n${logs.slice(from).join("\n")}`));
});

afterAll(async () => {
  await sql?.end({ timeout: 5 });
  const both = { dispose: async () => void (await Promise.all([mf?.dispose(), plain?.dispose()])) };
  await disposeAfterDatabase(both, async () => database?.drop(), database?.url);
});

function db(): postgres.Sql {
  if (!sql) throw new Error("the database was not created");
  return sql;
}

const sendTo =
  (worker: () => Miniflare | undefined) =>
  (url: string, init: RequestInit): Promise<Response> => {
    const running = worker();
    if (!running) throw new Error("the Worker did not start");
    return running.dispatchFetch(url, init as WorkerRequestInit) as unknown as Promise<Response>;
  };
const send = sendTo(() => mf);

/** A new account's MCP client (2026-07-28: one HTTP request a call) and its personal workspace. */
async function connectedClient(email: string, send = sendTo(() => mf)): Promise<{ mcp: Client; workspaceId: string }> {
  const account = await signUpAccount("http://loadout.test", email, undefined, send);
  const { secret } = await account.token(["mcp"]);
  const me = await account.rest("/v1/me");
  const workspaceId = (me.body as { workspaces: { id: string; kind?: string }[] }).workspaces[0]?.id ?? "";
  const mcp = new Client({ name: "queue-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
  await mcp.connect(
    new StreamableHTTPClientTransport(new URL("http://loadout.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      fetch: (url, init) => send(String(url), init as RequestInit),
    }),
  );
  return { mcp, workspaceId };
}

const calls = (workspaceId: string) =>
  db()<{ id: string; target_id: string; data: { outcome: string; client: string } }[]>`
    select id, target_id, data from audit_events where workspace_id = ${workspaceId} and action = 'mcp.call'`;

const usage = (workspaceId: string) =>
  db()<{ tool: string; calls: number }[]>`select tool, calls from mcp_usage_daily where workspace_id = ${workspaceId}`;

/** Polls until `read` gives `count` rows (or 15 s pass, for a loaded machine), then returns them. */
async function rowsOnce<T>(read: () => Promise<T[]>, count: number): Promise<T[]> {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const rows = await read();
    if (rows.length >= count) return rows;
  }
  return read();
}

/** Waits for a line in the Worker's console that matches, after `from`. */
async function logged(pattern: RegExp, from: number): Promise<string | undefined> {
  for (const until = Date.now() + 15_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
    const line = logs.slice(from).find((l) => pattern.test(l));
    if (line) return line;
  }
  return undefined;
}

describe("the call log through a Queue", () => {
  it("records a call as one row, after the answer, through the queue's consumer", async () => {
    const { mcp, workspaceId } = await connectedClient("queue-ada@example.com");
    try {
      const from = logs.length;
      const listed = await mcp.callTool({ name: "skills", arguments: { action: "list" } });
      expect(listed.isError).toBeFalsy();
      // The answer is out; the row is not written yet: the queue holds it for its batch window (1 s).
      expect(await calls(workspaceId)).toEqual([]);
      const rows = await rowsOnce(() => calls(workspaceId), 1);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ target_id: "skills", data: { outcome: "ok", client: "queue-test 1.0.0" } });
      expect(rows[0]?.id).toMatch(/^evt_/);
      expect(await usage(workspaceId)).toEqual([{ tool: "skills", calls: 1 }]);
      expect(await logged(/call-log delivery: 1 message\(s\), attempt 1/, from)).toBeDefined();
      // Still one a moment later: nothing else wrote it (the request itself does not insert).
      await new Promise((r) => setTimeout(r, 1_500));
      expect(await calls(workspaceId)).toHaveLength(1);
    } finally {
      await mcp.close();
    }
  });

  it("writes a redelivered batch once, and counts it once in the daily usage", async () => {
    const { mcp, workspaceId } = await connectedClient("queue-bob@example.com");
    try {
      expect((await send("http://loadout.test/__test/redeliver-next", {})).status).toBe(204);
      const from = logs.length;
      for (const action of ["list", "list"]) {
        const answer = await mcp.callTool({ name: "skills", arguments: { action } });
        expect(answer.isError).toBeFalsy();
      }
      // Delivered twice: written by the first delivery, whose acks were withheld, then by the second.
      expect(await logged(/call-log delivery: \d message\(s\), attempt 2/, from)).toBeDefined();
      const rows = await rowsOnce(() => calls(workspaceId), 2);
      expect(rows).toHaveLength(2);
      expect(new Set(rows.map((r) => r.id)).size).toBe(2);
      expect(await usage(workspaceId)).toEqual([{ tool: "skills", calls: 2 }]);
      // The second delivery was acked (its rows skipped, not refused): no third one comes.
      await new Promise((r) => setTimeout(r, 2_000));
      expect(logs.slice(from).filter((l) => /attempt 3|could not record/.test(l))).toEqual([]);
    } finally {
      await mcp.close();
    }
  });

  it("retries a batch the database refused, and writes it once the database takes it", async () => {
    const { mcp, workspaceId } = await connectedClient("queue-cy@example.com");
    try {
      const from = logs.length;
      await db()`alter table audit_events rename to audit_events_away`;
      try {
        const answer = await mcp.callTool({ name: "skills", arguments: { action: "list" } });
        // The call does not depend on its record.
        expect(answer.isError).toBeFalsy();
        expect(await logged(/could not record an MCP call/, from)).toBeDefined();
        expect(await logged(/call-log delivery: 1 message\(s\), attempt 2/, from)).toBeDefined();
      } finally {
        await db()`alter table audit_events_away rename to audit_events`;
      }
      const rows = await rowsOnce(() => calls(workspaceId), 1);
      expect(rows).toHaveLength(1);
      expect(await usage(workspaceId)).toEqual([{ tool: "skills", calls: 1 }]);
    } finally {
      await mcp.close();
    }
  });

  it("is written after each call's answer, as before, by a Worker without the CALL_LOG binding", async () => {
    const { mcp, workspaceId } = await connectedClient(
      "queue-dee@example.com",
      sendTo(() => plain),
    );
    try {
      const from = logs.length;
      const answer = await mcp.callTool({ name: "skills", arguments: { action: "list" } });
      expect(answer.isError).toBeFalsy();
      const rows = await rowsOnce(() => calls(workspaceId), 1);
      expect(rows).toMatchObject([{ target_id: "skills", data: { outcome: "ok" } }]);
      expect(await usage(workspaceId)).toEqual([{ tool: "skills", calls: 1 }]);
      expect(logs.slice(from).filter((l) => l.includes("call-log delivery"))).toEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

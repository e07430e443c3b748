import { auditEvents, type Database, newId } from "@loadout/db";
import { sql } from "drizzle-orm";
import type { Outcome } from "../../domain/activity/outcomes";
import type { Logger } from "../../logger";

/** One MCP call, as the activity log keeps it. */
export interface McpCall {
  workspaceId: string;
  userId: string;
  tokenId: string | null;
  requestId: string;
  at: Date;
  /** tools/call, skills/get, resources/read … */
  method: string;
  /** The tool name, or the URI read. */
  target: string;
  /** The item the call named, when it named one. */
  item: string | null;
  outcome: Outcome;
  ms: number;
  client: string | null;
  mode: string;
  project: string | null;
  /** The upstream server a proxied call went to (its slug), and the saved endpoint used, if any. */
  server?: string | null;
  endpoint?: string | null;
}

export interface CallRecorder {
  record(db: Database, call: McpCall): Promise<void>;
  flush(): Promise<void>;
}

const row = (call: McpCall): typeof auditEvents.$inferInsert => ({
  id: newId("event", call.at.getTime()),
  workspaceId: call.workspaceId,
  actorUserId: call.userId,
  actorTokenId: call.tokenId,
  action: "mcp.call",
  targetType: call.method,
  targetId: call.target,
  data: {
    item: call.item,
    outcome: call.outcome,
    ms: call.ms,
    client: call.client,
    mode: call.mode,
    project: call.project,
    server: call.server ?? null,
    endpoint: call.endpoint ?? null,
  },
  requestId: call.requestId,
  createdAt: call.at,
});

/**
 * A call's row as the batch's JSON holds it (jsonb_to_recordset reads the time as text). Its event
 * id is made here, once: a row sent on and delivered twice (a Queue) is written once.
 */
export function rowJson(call: McpCall): string {
  // A fresh row: its time is replaced in place (a spread copy of it would cost more than the row).
  const fresh: Record<string, unknown> = row(call);
  fresh.createdAt = call.at.toISOString();
  return JSON.stringify(fresh);
}

/**
 * A batch as one statement with one JSON parameter: Drizzle builds a multi-row INSERT parameter
 * by parameter, which at a few hundred rows costs more CPU than the calls being recorded. A row
 * whose id is already there is skipped (a redelivered Queue message), and the usage trigger counts
 * only the rows inserted.
 */
export async function insertBatch(db: Database, rows: readonly string[]): Promise<void> {
  await db.execute(sql`
    insert into ${auditEvents} (id, workspace_id, actor_user_id, actor_token_id, action, target_type, target_id, data, request_id, created_at)
    select r.id, r."workspaceId", r."actorUserId", r."actorTokenId", r.action, r."targetType", r."targetId", r.data, r."requestId", r."createdAt"
    from jsonb_to_recordset(${`[${rows.join(",")}]`}::jsonb) as r(
      id text, "workspaceId" text, "actorUserId" text, "actorTokenId" text, action text,
      "targetType" text, "targetId" text, data jsonb, "requestId" text, "createdAt" timestamptz
    )
    on conflict (id) do nothing`);
}

/**
 * Writes each call as it comes (after the response): for a Worker without the call-log Queue, where
 * nothing outlives a request (with it, see call-queue.ts).
 */
export const immediateRecorder: CallRecorder = {
  async record(db, call) {
    await db.insert(auditEvents).values(row(call));
  },
  async flush() {},
};

/**
 * Gathers calls and writes them in one INSERT every `intervalMs` (or at `maxBatch`): at thousands
 * of calls a second, one row per statement would cost the database more than the calls do. Each
 * call waits as its row's JSON, one string: a call's objects would outlive the young generation
 * and be copied to the old one, for every call.
 */
export function batchingRecorder(
  db: Database,
  logger: Logger,
  options: { intervalMs?: number; maxBatch?: number } = {},
): CallRecorder {
  const intervalMs = options.intervalMs ?? 250;
  const maxBatch = options.maxBatch ?? 500;
  let pending: string[] = [];
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing: Promise<void> = Promise.resolve();

  const flush = async () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const batch = pending;
    pending = [];
    if (batch.length === 0) return writing;
    writing = writing.then(async () => {
      try {
        await insertBatch(db, batch);
      } catch (error) {
        logger.log("error", "could not record MCP calls", {
          count: batch.length,
          error: error instanceof Error ? error.message.split("\n")[0] : String(error),
        });
      }
    });
    return writing;
  };

  return {
    async record(_db, call) {
      pending.push(rowJson(call));
      if (pending.length >= maxBatch) await flush();
      else if (!timer) {
        timer = setTimeout(() => void flush(), intervalMs);
        timer.unref?.();
      }
    },
    flush,
  };
}

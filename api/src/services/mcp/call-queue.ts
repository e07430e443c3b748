import type { Database } from "@loadout/db";
import { describeError } from "../../errors";
import type { Logger } from "../../logger";
import { databaseUnavailable, foreignKeyViolation } from "../db-errors";
import { type CallRecorder, insertBatch, rowJson } from "./call-log";

/**
 * The call log on Workers, through a Cloudflare Queue (infra/wrangler.jsonc, `CALL_LOG`): a call's
 * row is sent after the answer, and the api Worker's `queue()` handler writes each delivered batch
 * in one statement. A call then never waits on an insert, nor holds a database connection for one.
 */

/** A Queue producer binding, as the call log sends to it. */
export interface CallQueue {
  send(body: string, options?: { contentType?: "text" }): Promise<unknown>;
}

/** A delivered message, as a Queue consumer settles it. */
export interface QueuedMessage {
  readonly body: unknown;
  ack(): void;
  retry(options?: { delaySeconds?: number }): void;
}

/**
 * Sends each call's row (its event id made before sending, so that a redelivery is written once).
 * A send that fails writes the row on the request's own connection, as without the Queue.
 */
export function queueRecorder(queue: CallQueue, logger: Logger): CallRecorder {
  return {
    async record(db, call) {
      const body = rowJson(call);
      try {
        await queue.send(body, { contentType: "text" });
      } catch (error) {
        logger.log("warn", "could not queue an MCP call; writing it directly", { error: describeError(error) });
        await insertBatch(db, [body]);
      }
    },
    async flush() {},
  };
}

/** How long a message waits before it is delivered again after the database was out of reach. */
export const RETRY_DELAY_SECONDS = 30;

/** A call row as rowJson wrote it; anything else can never be written. */
function isCallRow(body: unknown): body is string {
  if (typeof body !== "string") return false;
  try {
    const row = JSON.parse(body) as { id?: unknown; workspaceId?: unknown } | null;
    return typeof row?.id === "string" && row.id.startsWith("evt_") && typeof row.workspaceId === "string";
  } catch {
    return false;
  }
}

/**
 * Writes a delivered batch of call rows, idempotently (see insertBatch), and settles every message:
 * acked once written; retried after a delay while the database is out of reach. A batch another
 * error refused is written row by row, so that one bad row does not hold back the others: a row
 * whose workspace is gone is dropped (its calls would have gone with it), a row refused for another
 * reason is retried (after its retries, the dead-letter queue keeps it). Never throws.
 */
export async function writeQueuedCalls(
  db: Database,
  messages: readonly QueuedMessage[],
  logger: Logger,
): Promise<void> {
  const calls: { message: QueuedMessage; row: string }[] = [];
  for (const message of messages) {
    if (isCallRow(message.body)) calls.push({ message, row: message.body });
    else {
      logger.log("error", "dropped a call-log message that is not a call row");
      message.ack();
    }
  }
  if (calls.length === 0) return;
  try {
    await insertBatch(
      db,
      calls.map((c) => c.row),
    );
    for (const { message } of calls) message.ack();
    return;
  } catch (error) {
    if (databaseUnavailable(error)) {
      logger.log("warn", "could not record MCP calls; they will be delivered again", {
        count: calls.length,
        error: describeError(error),
      });
      for (const { message } of calls) message.retry({ delaySeconds: RETRY_DELAY_SECONDS });
      return;
    }
  }
  for (const { message, row } of calls) {
    try {
      await insertBatch(db, [row]);
      message.ack();
    } catch (error) {
      const fields = { error: describeError(error) };
      if (foreignKeyViolation(error)) {
        logger.log("warn", "dropped an MCP call of a deleted workspace", fields);
        message.ack();
      } else {
        logger.log("error", "could not record an MCP call", fields);
        message.retry(databaseUnavailable(error) ? { delaySeconds: RETRY_DELAY_SECONDS } : {});
      }
    }
  }
}

import type { OpenedDatabase } from "@loadout/db";
import { sql } from "drizzle-orm";
import type { Logger } from "../../logger";
import { PendingAnswers, type RpcAnswer } from "./pending-answers";

/** The channel instances pass a 2025 client's answers on, to the one whose call waits for them. */
export const ANSWER_CHANNEL = "loadout_mcp_answers";
/** A notification's payload is at most 8000 bytes in Postgres. */
const NOTIFY_LIMIT = 7900;

/**
 * The answers calls wait for, passed between the instances of one database: an answer that reaches
 * an instance with no call waiting for it goes out as a notification, and the instance holding the
 * call takes it (see PendingAnswers). Where the database cannot listen, answers stay with the
 * instance they reached. An answer larger than a notification carries (a long sampling result) is
 * not passed on, and says so in the log; its call gives up when its wait ends.
 */
export async function startAnswerRelay(
  database: Pick<OpenedDatabase, "db" | "listen">,
  logger: Logger,
): Promise<{ pending: PendingAnswers; close(): Promise<void> }> {
  const listen = database.listen;
  if (!listen) return { pending: new PendingAnswers(), close: async () => {} };
  const pending = new PendingAnswers((owner, answer) => {
    const payload = JSON.stringify([owner, answer]);
    if (payload.length > NOTIFY_LIMIT) {
      logger.log("warn", "an MCP client's answer is too large to pass to another instance", {
        bytes: payload.length,
      });
      return;
    }
    database.db.execute(sql`select pg_notify(${ANSWER_CHANNEL}, ${payload})`).catch((error: unknown) =>
      logger.log("warn", "could not pass an MCP client's answer on", {
        error: error instanceof Error ? error.message : String(error),
      }),
    );
  });
  try {
    const { unlisten } = await listen(
      ANSWER_CHANNEL,
      (payload) => {
        try {
          const [owner, answer] = JSON.parse(payload) as [string, RpcAnswer];
          if (typeof owner === "string" && answer && typeof answer.id === "string") pending.receive(owner, answer);
        } catch {
          // Not one of ours: nothing waits for it.
        }
      },
      () => {},
    );
    return { pending, close: unlisten };
  } catch (error) {
    logger.log(
      "warn",
      "cannot listen for MCP answers; a 2025 client's answer reaches only the instance it was sent to",
      {
        error: error instanceof Error ? error.message : String(error),
      },
    );
    return { pending: new PendingAnswers(), close: async () => {} };
  }
}

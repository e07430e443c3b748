import { type Database, mcpSessionLevels } from "@loadout/db";
import { and, eq, lt, ne } from "drizzle-orm";
import { isLogLevel, type LogLevel } from "../../domain/mcp/log-levels";

/**
 * A 2025-era client session's log level (`logging/setLevel`), kept in Postgres under the session's
 * key (see subscriptionKey): Loadout serves those clients statelessly and shares an upstream's
 * session between them, so the level cannot be kept in the session nor set upstream. Loadout
 * applies it to the log messages an upstream sends during that session's calls (mcp/log-gate.ts),
 * reading it only when a call hears its first message, so that a call without messages reads
 * nothing. A level not set again for KEPT_DAYS is let go when the user next sets one.
 */

/** Levels not set again for this long are deleted. */
const KEPT_DAYS = 30;

/** Keeps `level` for the session, in place of any it set before. */
export async function keepSessionLevel(
  db: Database,
  sessionKey: string,
  userId: string,
  level: LogLevel,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx
      .insert(mcpSessionLevels)
      .values({ sessionKey, userId, level, setAt: now })
      .onConflictDoUpdate({ target: mcpSessionLevels.sessionKey, set: { level, setAt: now } });
    await tx
      .delete(mcpSessionLevels)
      .where(
        and(
          eq(mcpSessionLevels.userId, userId),
          ne(mcpSessionLevels.sessionKey, sessionKey),
          lt(mcpSessionLevels.setAt, new Date(now.getTime() - KEPT_DAYS * 86_400_000)),
        ),
      );
  });
}

/** The level the session set, or null when it set none (one statement). */
export async function sessionLevel(db: Database, sessionKey: string): Promise<LogLevel | null> {
  const [row] = await db
    .select({ level: mcpSessionLevels.level })
    .from(mcpSessionLevels)
    .where(eq(mcpSessionLevels.sessionKey, sessionKey));
  return row && isLogLevel(row.level) ? row.level : null;
}

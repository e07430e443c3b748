import { type Database, mcpResourceSubscriptions } from "@loadout/db";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { and, eq, lt, ne, sql } from "drizzle-orm";
import { AppError } from "../../errors";
import { MAX_WATCHED_RESOURCES } from "./proxied";

/**
 * A 2025-era client session's resource subscriptions (`resources/subscribe`), kept in Postgres:
 * Loadout serves those clients statelessly, so the POST that subscribes and the GET stream that
 * carries the updates may reach different instances. The instance holding the stream reads them
 * when it opens and again whenever they change (the table's trigger notifies
 * `sub:<session key>`), and watches them upstream (see mcp/legacy-listen.ts). A stream is reopened
 * every few minutes, so rows are refreshed as they are read, and those of a session no stream has
 * read for KEPT_DAYS are let go when its user next subscribes. The session's `sub:<key>` counter in
 * cache_stamps, which its stream polls where it cannot listen, is deleted by the same trigger once
 * the session's last row goes, whichever way (migration 0024): the change is still told first, and
 * the counter reads absent (0) after.
 */

/** Rows not read by a stream for this long are deleted. */
const KEPT_DAYS = 7;

/**
 * The key a session's subscriptions are kept under: a digest of its owner (the session id with the
 * credentials that use it, see the pipeline's ownerOf), so that a stolen session id with other
 * credentials reads none of them, and the table holds no session id. Also the feed's
 * `sub:<key>` counter key, hence lowercase hex.
 */
export function subscriptionKey(owner: string): string {
  return bytesToHex(sha256(utf8ToBytes(owner))).slice(0, 32);
}

/** Keeps `uri` for the session (the caller checked that the session may watch it). */
export async function subscribeResource(
  db: Database,
  sessionKey: string,
  userId: string,
  uri: string,
  now: Date,
): Promise<void> {
  await db.transaction(async (tx) => {
    const [held] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(mcpResourceSubscriptions)
      // Its others: subscribing again to one it holds is always accepted.
      .where(and(eq(mcpResourceSubscriptions.sessionKey, sessionKey), ne(mcpResourceSubscriptions.uri, uri)));
    if ((held?.n ?? 0) >= MAX_WATCHED_RESOURCES)
      throw new AppError(
        "invalid_request",
        `This session holds ${MAX_WATCHED_RESOURCES} resource subscriptions, the most it may: unsubscribe from one first.`,
      );
    await tx
      .insert(mcpResourceSubscriptions)
      .values({ sessionKey, userId, uri, seenAt: now })
      .onConflictDoUpdate({
        target: [mcpResourceSubscriptions.sessionKey, mcpResourceSubscriptions.uri],
        set: { seenAt: now },
      });
    await tx
      .delete(mcpResourceSubscriptions)
      .where(
        and(
          eq(mcpResourceSubscriptions.userId, userId),
          lt(mcpResourceSubscriptions.seenAt, new Date(now.getTime() - KEPT_DAYS * 86_400_000)),
        ),
      );
  });
}

export async function unsubscribeResource(db: Database, sessionKey: string, uri: string): Promise<void> {
  await db
    .delete(mcpResourceSubscriptions)
    .where(and(eq(mcpResourceSubscriptions.sessionKey, sessionKey), eq(mcpResourceSubscriptions.uri, uri)));
}

/** The session's subscriptions, sorted, each marked read now (one statement). */
export async function subscribedUris(db: Database, sessionKey: string, now: Date): Promise<string[]> {
  const rows = await db
    .update(mcpResourceSubscriptions)
    .set({ seenAt: now })
    .where(eq(mcpResourceSubscriptions.sessionKey, sessionKey))
    .returning({ uri: mcpResourceSubscriptions.uri });
  return rows.map((r) => r.uri).sort();
}

import { bigint, pgTable, text } from "drizzle-orm/pg-core";

/**
 * A counter per user (`user:<id>`) and per workspace (`ws:<id>`), bumped by the same triggers that
 * notify `loadout_invalidate` (0010_invalidation.sql), in the writing transaction as it commits (0020). An instance that
 * cannot listen (a Worker) reads the counters of a request's user and workspaces as the request's
 * first statement, and serves from memory only what was read under the counters it sees
 * (api/src/services/cache/freshness.ts, `PolledFreshness`).
 *
 * Also one per 2025 session that holds resource subscriptions (`sub:<session key>`, 0023), which
 * its GET stream polls on Workers. That row is deleted with the session's last subscription
 * (unsubscribed, or let go a week after a stream last read it), once the change is told (0024);
 * so that a row deleted and made again never repeats a value a poller saw, each change sets it to
 * the next value of a sequence rather than counting. Counters are compared for equality only: an
 * absent row reads as 0.
 */
export const cacheStamps = pgTable("cache_stamps", {
  key: text("key").primaryKey(),
  n: bigint("n", { mode: "number" }).notNull(),
});

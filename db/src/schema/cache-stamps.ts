import { bigint, pgTable, text } from "drizzle-orm/pg-core";

/**
 * A counter per user (`user:<id>`) and per workspace (`ws:<id>`), bumped by the same triggers that
 * notify `loadout_invalidate` (0010_invalidation.sql), in the writing transaction as it commits (0020). An instance that
 * cannot listen (a Worker) reads the counters of a request's user and workspaces as the request's
 * first statement, and serves from memory only what was read under the counters it sees
 * (api/src/services/cache/freshness.ts, `PolledFreshness`).
 */
export const cacheStamps = pgTable("cache_stamps", {
  key: text("key").primaryKey(),
  n: bigint("n", { mode: "number" }).notNull(),
});

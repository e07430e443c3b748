import { cacheStamps, type Database } from "@loadout/db";
import { inArray } from "drizzle-orm";
import { type PolledFreshness, stampKeys } from "./freshness";

/**
 * Reads the counters of a user and workspaces (one statement) and applies them to `polled`: after
 * it, what the caches hold for them under `polled` is current as of this read.
 */
export async function pollStamps(
  db: Database,
  polled: PolledFreshness,
  userId: string,
  workspaceIds: readonly string[],
): Promise<void> {
  const keys = stampKeys(userId, workspaceIds);
  const rows = await db
    .select({ key: cacheStamps.key, n: cacheStamps.n })
    .from(cacheStamps)
    .where(inArray(cacheStamps.key, keys));
  polled.apply(keys, new Map(rows.map((r) => [r.key, Number(r.n)])));
}

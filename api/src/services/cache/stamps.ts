import { cacheStamps, type Database } from "@loadout/db";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { inArray, sql } from "drizzle-orm";
import { type PolledFreshness, stampKeys } from "./freshness";

/** The characters of a stamp key (`user:usr_…`, `ws:ws_…`: a kind, a colon and an id). */
const KEY = /^[a-z]+:[a-z0-9_]+$/;

/**
 * The keys as a list of SQL literals, or null when one holds any other character than a stamp
 * key's (none of which can end a literal). This is the warm path's one statement on Workers, where
 * every request has a connection of its own: postgres.js sends a statement with parameters in two
 * round trips on a connection that has not prepared it (Parse and Describe first, for the
 * parameters' types, then Bind and Execute), and one without parameters in one. Measured here on a
 * new connection each time (the same statement, two keys): 1.41–1.86 ms p50 with parameters,
 * 0.93–1.01 ms inlined; through Hyperdrive the round trip saved is one to the database's region.
 */
export function stampLiterals(keys: readonly string[]): string | null {
  if (keys.length === 0 || !keys.every((key) => KEY.test(key))) return null;
  return keys.map((key) => `'${key}'`).join(", ");
}

/**
 * A change feed held elsewhere (Workers: the ChangeFeed Durable Object, entry/change-feed.ts, which
 * listens on Postgres where an isolate cannot): the stamps of counter keys as it has heard them.
 */
export interface ChangeFeedClient {
  /** Each key's stamp, or null when the feed is not live (then Postgres is read instead). */
  stamps(keys: string[]): Promise<Record<string, string> | null>;
  /** Resolves true once the feed has heard every change committed before the call; false if it cannot say. */
  caughtUp(): Promise<boolean>;
}

/**
 * Reads the counters of a user and workspaces and applies them to `polled`: after it, what the
 * caches hold for them under `polled` is current as of this read. From the change feed when one
 * is live (no database statement: a warm call then reads nothing from Postgres), else in one
 * statement. A feed answers what it has heard, so a change another isolate committed is seen once
 * its notification arrives (milliseconds, as on Node); this isolate's own writes, and every write
 * answered through the REST API, wait for the feed to catch up before they answer (see
 * request-context.ts), so the next request anywhere sees them.
 */
export async function pollStamps(
  db: Database,
  polled: PolledFreshness,
  userId: string,
  workspaceIds: readonly string[],
  feed?: ChangeFeedClient,
  /** More counter keys to read (a 2025 session's subscriptions: `sub:<key>`). */
  also: readonly string[] = [],
): Promise<void> {
  const keys = also.length ? [...stampKeys(userId, workspaceIds), ...also] : stampKeys(userId, workspaceIds);
  if (feed) {
    const heard = await feed.stamps(keys).catch(() => null);
    if (heard && keys.every((key) => typeof heard[key] === "string")) {
      polled.apply(keys, new Map(Object.entries(heard)));
      return;
    }
  }
  polled.apply(keys, await readCounters(db, keys));
}

/** The Postgres counters of `keys`, in one statement (a key never bumped is absent). */
export async function readCounters(db: Database, keys: readonly string[]): Promise<Map<string, number>> {
  const literals = stampLiterals(keys);
  const rows = await db
    .select({ key: cacheStamps.key, n: cacheStamps.n })
    .from(cacheStamps)
    .where(literals === null ? inArray(cacheStamps.key, keys) : sql`${cacheStamps.key} in (${sql.raw(literals)})`);
  return new Map(rows.map((r) => [r.key, Number(r.n)]));
}

/**
 * A resumption cursor for a set of counters: equal when, and only when (to a 64-bit digest), every
 * counter of `keys` is as it was. A 2025 client's GET stream gives it as its events' ids, so that
 * the client's `Last-Event-ID`, when it reconnects, says whether anything changed while it was
 * away (see mcp/legacy-listen.ts). A digest, not the counters: it says nothing but "changed or
 * not", and is as short for a member of fifty workspaces as for one.
 */
export function counterCursor(keys: readonly string[], counters: ReadonlyMap<string, number>): string {
  const text = [...keys]
    .sort()
    .map((key) => `${key}=${counters.get(key) ?? 0}`)
    .join("\n");
  return `c1.${bytesToHex(sha256(utf8ToBytes(text))).slice(0, 16)}`;
}

/** The cursor of `keys` as Postgres holds their counters now (one statement). */
export async function readCursor(db: Database, keys: readonly string[]): Promise<string> {
  return counterCursor(keys, await readCounters(db, keys));
}

import type { Listen, OpenedDatabase } from "@loadout/db";
import { sql } from "drizzle-orm";
import type { Logger } from "../../logger";

/** The channel the triggers of migration 0010 notify on commit. */
export const INVALIDATION_CHANNEL = "loadout_invalidate";

/**
 * What lets an instance serve from memory what each MCP call would otherwise read from Postgres
 * (principals, skills, servers, tools): a generation per user and per workspace, bumped by the
 * notification Postgres sends on commit of any change to them, and a global one bumped whenever
 * notifications may have been lost. A cached value carries the generations it was read under and
 * is served only while they are unchanged, so a read that raced a change is never served.
 *
 * Caches serve only while the feed is live: listening, with its heartbeat (a notification this
 * instance sends itself) coming back. A listen connection that drops silently is noticed within
 * two heartbeats; until then, at worst, a revoked token keeps working on this instance for that
 * long. Where no listen is possible (Workers), each MCP request polls instead (PolledFreshness).
 */
export class Freshness {
  private readonly users = new Map<string, number>();
  private readonly workspaces = new Map<string, number>();
  /** 2025-era sessions' resource subscriptions (`sub:<session key>`): no cached value depends on them. */
  private readonly subscriptions = new Map<string, number>();
  private global = 0;
  private listening = false;
  private pingSent: { nonce: string; at: number } | null = null;
  private pingMissed = false;
  /** Pings sent by `caughtUp`, each resolved when it comes back. */
  private readonly marks = new Map<string, () => void>();
  /** Who is told of each change heard (MCP listen streams, see mcp/list-changes.ts). */
  private readonly watchers = new Set<(change: FeedChange) => void>();
  /**
   * Bumped by every change heard of. A value whose key is not known before it is read (a principal,
   * found by its secret) is kept only if this did not move during the read.
   */
  sequence = 0;

  get live(): boolean {
    return this.listening && !this.pingMissed;
  }

  /** The stamp a value read now for this user carries: compare with `userStamp` at use. */
  userStamp(userId: string): string {
    return `${this.global}.${this.users.get(userId) ?? 0}`;
  }

  /** The same for a set of workspaces (order-insensitive callers sort the ids first). */
  workspaceStamp(ids: readonly string[]): string {
    let stamp = String(this.global);
    for (const id of ids) stamp += `.${this.workspaces.get(id) ?? 0}`;
    return stamp;
  }

  /**
   * The stamp of one counter key (`user:<id>`, `ws:<id>` or `sub:<session key>`, as the triggers and
   * stampKeys name them): what a client of this feed compares call to call (see ChangeFeed,
   * entry/change-feed.ts).
   */
  keyStamp(key: string): string {
    const colon = key.indexOf(":");
    const id = key.slice(colon + 1);
    const kind = key.slice(0, colon);
    if (kind === "sub") return `${this.global}.${this.subscriptions.get(id) ?? 0}`;
    return kind === "user" ? this.userStamp(id) : this.workspaceStamp([id]);
  }

  /**
   * Tells `watcher` of every change this instance hears of from Postgres, committed by any
   * instance: a user's or a workspace's, or `all` when changes may have been missed (a listen
   * that was down). A change this instance wrote is heard like the others', when its
   * notification comes back. Returns the way to stop.
   */
  watch(watcher: (change: FeedChange) => void): () => void {
    this.watchers.add(watcher);
    return () => this.watchers.delete(watcher);
  }

  private tell(change: FeedChange) {
    for (const watcher of this.watchers) watcher(change);
  }

  /** A payload from the channel: `user:<id>`, `ws:<id>`, `sub:<session key>` or this instance's own heartbeat. */
  receive(payload: string): void {
    const colon = payload.indexOf(":");
    const kind = payload.slice(0, colon);
    const id = payload.slice(colon + 1);
    if (kind === "sub") {
      // Only the session's stream reads these: nothing cached moves.
      if (this.subscriptions.size >= 100_000) this.forgetAll();
      this.subscriptions.set(id, (this.subscriptions.get(id) ?? 0) + 1);
      this.tell({ sessionKey: id });
      return;
    }
    if (kind !== "ping") this.sequence++;
    if (kind === "user") {
      this.users.set(id, (this.users.get(id) ?? 0) + 1);
      this.tell({ userId: id });
    } else if (kind === "ws") {
      this.workspaces.set(id, (this.workspaces.get(id) ?? 0) + 1);
      this.tell({ workspaceId: id });
    } else if (kind === "ping") {
      this.marks.get(id)?.();
      this.marks.delete(id);
      if (this.pingSent?.nonce === id) {
        this.pingSent = null;
        this.pingMissed = false;
      }
    } else {
      this.forgetAll();
      this.tell("all");
    }
    // The maps only grow with users and workspaces seen changing; past this, start again.
    if (this.users.size + this.workspaces.size > 200_000) this.forgetAll();
  }

  /**
   * This instance just committed a change (a write request answered). Its notification may not
   * have arrived yet, and the client may ask again at once: nothing cached here holds any more.
   * Other instances hear of it through Postgres, within milliseconds.
   */
  wroteHere(): void {
    this.forgetAll();
  }

  /** Resolves when the ping with this nonce comes back on the channel. */
  heard(nonce: string): Promise<void> {
    return new Promise((resolve) => this.marks.set(nonce, resolve));
  }

  /** (Re)listening: whatever was sent while the listen was down is unknown, so nothing cached holds. */
  listened(): void {
    const again = this.listening;
    this.forgetAll();
    this.listening = true;
    // Listening again after a drop: what changed meanwhile is unknown.
    if (again) this.tell("all");
  }

  /** The heartbeat: the last ping must have come back before the next one goes. */
  heartbeat(nonce: string, now: number): void {
    if (this.pingSent) {
      if (!this.pingMissed) this.forgetAll();
      this.pingMissed = true;
    }
    this.pingSent = { nonce, at: now };
  }

  stopped(): void {
    this.listening = false;
    this.forgetAll();
  }

  private forgetAll() {
    // Nothing cached holds now, so the next read of anything sees every committed change: whoever
    // waits to have heard of them (a mark whose ping may be lost with the listen) has.
    for (const resolve of this.marks.values()) resolve();
    this.marks.clear();
    this.sequence++;
    this.global++;
    this.users.clear();
    this.workspaces.clear();
    this.subscriptions.clear();
  }
}

/**
 * Freshness where no change feed runs (Workers, or a Node instance whose listen failed): each MCP
 * request reads the counters of its user and workspaces (`cache_stamps`, bumped by the same
 * triggers as the feed's notifications, as the writing transaction commits) as its first statement and
 * applies them here. A counter that moved, or one not seen before, counts as that change heard, so
 * whatever was cached under it no longer holds. What a request reads after its counters is at
 * least as new as they are, so it may be kept under them; what it serves from memory was read under
 * counters equal to those it just read, so it is current as of that statement.
 *
 * Only requests that polled may serve from memory: HotCaches hands this freshness to the
 * request's view (HotCaches.view), never to the instance's own caches, which other requests use.
 */
export class PolledFreshness extends Freshness {
  private readonly seen = new Map<string, number | string>();

  constructor() {
    super();
    this.listened();
  }

  /**
   * The counters one request read: `stamps` by key, for every key it asked for (absent: never
   * bumped). A counter is compared for equality only: Postgres's (a number) or a change feed's stamp
   * (a string, see ChangeFeedClient), which never equal each other, so a switch of source is a change.
   */
  apply(asked: readonly string[], stamps: ReadonlyMap<string, number | string>): void {
    for (const key of asked) {
      const n = stamps.get(key) ?? 0;
      if (this.seen.get(key) === n) continue;
      if (this.seen.size >= 200_000) this.seen.clear();
      this.seen.set(key, n);
      this.receive(key);
    }
  }
}

/** The counter keys of a user and workspaces, as the triggers write them (and the feed's payloads). */
export const stampKeys = (userId: string, workspaceIds: readonly string[]): string[] => [
  `user:${userId}`,
  ...workspaceIds.map((id) => `ws:${id}`),
];

/**
 * A change heard on the feed: whose, a 2025 session's resource subscriptions (by its key, see
 * services/mcp/legacy-subscriptions.ts), or `all` when any may have changed unheard.
 */
export type FeedChange = { userId: string } | { workspaceId: string } | { sessionKey: string } | "all";

export interface FreshnessFeed {
  freshness: Freshness;
  /**
   * Resolves once this instance has heard of every change committed before the call: Postgres
   * delivers notifications in commit order, so a ping sent now comes back after all of them.
   */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts listening on the invalidation channel and the heartbeat that proves it still works.
 * `notify` sends a payload on the channel (one small query every `heartbeatMs`).
 */
export async function startFreshnessFeed(options: {
  listen: Listen;
  notify: (payload: string) => Promise<unknown>;
  logger: Logger;
  heartbeatMs?: number;
}): Promise<FreshnessFeed> {
  const freshness = new Freshness();
  const { unlisten } = await options.listen(
    INVALIDATION_CHANNEL,
    (payload) => freshness.receive(payload),
    () => freshness.listened(),
  );
  let beats = 0;
  const instance = Math.random().toString(36).slice(2, 10);
  const timer = setInterval(() => {
    const nonce = `${instance}-${++beats}`;
    freshness.heartbeat(nonce, Date.now());
    options.notify(`ping:${nonce}`).catch((error: unknown) => {
      options.logger.log("warn", "the cache heartbeat could not be sent", { error: String(error) });
    });
  }, options.heartbeatMs ?? 5_000);
  timer.unref?.();
  let marks = 0;
  return {
    freshness,
    caughtUp() {
      const nonce = `${instance}-mark-${++marks}`;
      const heard = freshness.heard(nonce);
      return options.notify(`ping:${nonce}`).then(() => heard);
    },
    async close() {
      clearInterval(timer);
      freshness.stopped();
      await unlisten();
    },
  };
}

/** The feed of this database, where it can listen (Node: PGlite and postgres.js); null elsewhere. */
export async function startDatabaseFreshness(
  database: OpenedDatabase,
  logger: Logger,
  heartbeatMs?: number,
): Promise<FreshnessFeed | null> {
  if (!database.listen) return null;
  try {
    return await startFreshnessFeed({
      listen: database.listen,
      notify: (payload) => database.db.execute(sql`select pg_notify(${INVALIDATION_CHANNEL}, ${payload})`),
      logger,
      ...(heartbeatMs ? { heartbeatMs } : {}),
    });
  } catch (error) {
    // Serving without the caches is slower, not wrong: every call then reads the database.
    logger.log("warn", "cannot listen for changes; MCP calls will read the database every time", {
      error: error instanceof Error ? error.message : String(error),
    });
    return null;
  }
}

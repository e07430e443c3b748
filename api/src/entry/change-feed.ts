/// <reference path="../../../workers/src/cloudflare-workers.d.ts" />
import { DurableObject } from "cloudflare:workers";
import { connectPostgres } from "@loadout/db";
import { jsonLogger } from "../logger";
import { type FreshnessFeed, startDatabaseFreshness } from "../services/cache/freshness";
import type { ChangeFeedClient } from "../services/cache/stamps";

/** How long a failed start (the database away, LISTEN refused) is kept before the next try. */
const RETRY_AFTER_MS = 5_000;
/** How long a write's answer waits for the feed to hear it; past this it answers anyway. */
const CATCH_UP_MS = 2_000;

/** The name the object's connections show in pg_stat_activity (unless the URL names them). */
export const FEED_APPLICATION_NAME = "loadout-change-feed";

function named(url: string): string {
  const parsed = new URL(url);
  if (!parsed.searchParams.has("application_name")) parsed.searchParams.set("application_name", FEED_APPLICATION_NAME);
  return parsed.toString();
}

/** What the object reads of the api Worker's environment. */
interface FeedEnv {
  /** A direct connection to Postgres that can LISTEN (Hyperdrive pools transactions and cannot). */
  LOADOUT_LISTEN_URL?: string;
  DATABASE_URL?: string;
}

/**
 * Postgres's change feed for a Workers deployment, in one Durable Object: what a Node instance
 * does for itself (services/cache/freshness.ts, LISTEN on the invalidation channel with its
 * heartbeat), which an isolate cannot, since no connection outlives its request there. Isolates
 * ask it for the stamps of a request's user and workspaces instead of reading their counters from
 * Postgres, so a warm MCP call makes no database statement (one RPC to this object instead); a
 * write's answer waits until the object has heard it (`caughtUp`), so the next request on any
 * isolate sees it. While the listen is not live (starting, dropped, its heartbeat missed) it
 * answers null and the isolates read Postgres as before.
 *
 * Each object's stamps carry an epoch drawn when it starts: an object evicted and started again
 * has heard nothing of what changed meanwhile, and its stamps match none it gave before.
 */
export class ChangeFeed extends DurableObject<FeedEnv> {
  private readonly epoch = crypto.randomUUID().slice(0, 8);
  /** The live feed once started; null while it starts, or after a failed start. */
  private feed: FreshnessFeed | null = null;
  private starting = false;
  private failedAt = 0;

  /**
   * The feed, or null while there is none yet: a missing one is started in the background, so no
   * request waits on the object's connection (the database away costs a connect timeout); until it
   * is live, requests read Postgres's counters.
   */
  private started(): FreshnessFeed | null {
    if (this.feed || this.starting) return this.feed;
    const url = this.env.LOADOUT_LISTEN_URL ?? this.env.DATABASE_URL;
    if (!url || Date.now() - this.failedAt < RETRY_AFTER_MS) return null;
    let listenUrl: string;
    try {
      listenUrl = named(url);
    } catch {
      this.failedAt = Date.now();
      jsonLogger.log(
        "error",
        "the change feed's LOADOUT_LISTEN_URL is not a URL; MCP calls read their counters from Postgres",
      );
      return null;
    }
    this.starting = true;
    const database = connectPostgres(listenUrl, { max: 1 });
    void startDatabaseFreshness(database, jsonLogger).then((started) => {
      this.starting = false;
      if (started) this.feed = started;
      else {
        this.failedAt = Date.now();
        void database.close().catch(() => {});
      }
    });
    return null;
  }

  async stamps(keys: string[]): Promise<Record<string, string> | null> {
    if (!Array.isArray(keys)) return null;
    const feed = this.started();
    if (!feed?.freshness.live) return null;
    const stamps: Record<string, string> = {};
    for (const key of keys) if (typeof key === "string") stamps[key] = `${this.epoch}.${feed.freshness.keyStamp(key)}`;
    return stamps;
  }

  async caughtUp(): Promise<boolean> {
    const feed = this.started();
    if (!feed?.freshness.live) return false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const heard = await Promise.race([
      feed.caughtUp().then(() => true),
      new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), CATCH_UP_MS);
      }),
    ]).catch(() => false);
    clearTimeout(timer);
    return heard;
  }
}

/** The parts of a Durable Object namespace binding the client uses. */
export interface ChangeFeedNamespace {
  idFromName(name: string): unknown;
  get(id: unknown): Pick<ChangeFeed, "stamps" | "caughtUp">;
}

/**
 * The api Worker's side: one object for the deployment (named "changes"). A stub is made per call,
 * since a stub made for one request may not be used by another.
 */
export function changeFeedClient(namespace: ChangeFeedNamespace): ChangeFeedClient {
  const stub = () => namespace.get(namespace.idFromName("changes"));
  return {
    stamps: (keys) => stub().stamps(keys),
    caughtUp: () => stub().caughtUp(),
  };
}

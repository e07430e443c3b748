import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema";

export type Schema = typeof schema;
/** A database or a transaction: both run the same queries. */
export type Database = PgDatabase<PgQueryResultHKT, Schema>;

export interface OpenedDatabase {
  db: Database;
  kind: "pglite" | "postgres";
  close(): Promise<void>;
  /**
   * LISTEN on a channel where the host can hold a connection open (Node): `onMessage` gets each
   * payload, `onListen` runs each time the listen is (re)established, since messages sent while
   * it was down are lost. Absent on Workers.
   */
  listen?: Listen;
}

export type Listen = (
  channel: string,
  onMessage: (payload: string) => void,
  onListen: () => void,
) => Promise<{ unlisten(): Promise<void> }>;

export interface PostgresOptions {
  /** Pool size. On Workers keep 1: the connection lives for one request. */
  max?: number;
  /** Seconds a connection attempt may take before its queries fail (default CONNECT_TIMEOUT_S). */
  connectTimeout?: number;
  /** Seconds a query waits for a free connection before it fails (default ACQUIRE_TIMEOUT_S). */
  acquireTimeout?: number;
  /** Seconds an idle connection stays open (default: until closed). */
  idleTimeout?: number;
  /** Tests only: told the text of every query the app runs. */
  logQuery?: (query: string) => void;
}

/**
 * A request's connection closes after this many idle seconds, and its next query connects again: a
 * long event stream (a 2025 client's GET stream, a listen stream) holds no connection between
 * the statements it makes minutes apart.
 */
export const REQUEST_IDLE_S = 5;

/**
 * A connection attempt gives up after this many seconds. postgres.js waits 30 by default, and a
 * request waits with it: while the database is away an answer must come at once.
 */
export const CONNECT_TIMEOUT_S = 2;

/**
 * A query waits at most this many seconds for a connection when every one is busy or connecting
 * (the patch adds the option): while the database is away, queries queued behind a small pool
 * would otherwise wait for one failed connection attempt after another. A healthy pool hands a
 * connection over in milliseconds, so reaching this means the database cannot keep up either.
 */
export const ACQUIRE_TIMEOUT_S = 5;

/**
 * Seconds before reconnecting after a failed connection: 0.1 s doubling up to 0.5 s, with
 * jitter (postgres.js counts the failures, from 1). postgres.js's own backoff grows to 20 s, so after an outage of ten seconds or so the
 * pool would wait up to 20 s more before trying again; capped, it is back within half a second.
 */
export function reconnectDelay(retries: number): number {
  // No failure yet (a connection closed on purpose, see requestScopedPostgres): at once.
  if (retries === 0) return 0;
  return Math.min(0.05 * 2 ** retries, 0.5) * (0.5 + Math.random() / 2);
}

/**
 * Connects to Postgres with postgres.js. Safe on Workers (no Node-only imports here):
 * postgres.js picks its Cloudflare sockets build under workerd.
 */
export function connectPostgres(url: string, options: PostgresOptions = {}): OpenedDatabase {
  const { sql, db } = client(url, options);
  return {
    db,
    kind: "postgres",
    close: () => sql.end({ timeout: 5 }),
    // postgres.js holds one extra connection for LISTEN and reconnects it, calling onListen again.
    listen: async (channel, onMessage, onListen) => {
      const { unlisten } = await sql.listen(channel, onMessage, onListen);
      return { unlisten };
    },
  };
}

/** A database for one request: `release` closes its connection (see requestScopedPostgres). */
export interface RequestDatabase {
  db: Database;
  release(): Promise<void>;
}

/** Handles kept between requests, at most: more concurrent requests than this build their own. */
const IDLE_HANDLES = 8;
/** How long a request's release waits for its connection to close before ending it. */
const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Databases for a host whose connections may not outlive their request (Workers: an I/O object
 * belongs to the request that opened it). Each request gets a handle of its own, with one
 * connection opened by its first query and closed by `release`; the handle itself (postgres.js's
 * client and drizzle's view of the schema, which cost about 0.5 ms of CPU to build, measured in
 * Node on this machine) is kept and handed to a later request, whose first query connects anew.
 * A handle is handed out again only after its connection closed, so no socket crosses requests.
 */
export function requestScopedPostgres(url: string, options: Omit<PostgresOptions, "max"> = {}) {
  const idle: ReturnType<typeof client>[] = [];
  return {
    acquire(): RequestDatabase {
      const handle = idle.pop() ?? client(url, { idleTimeout: REQUEST_IDLE_S, ...options, max: 1 });
      return {
        db: handle.db,
        async release() {
          // `close`, not `end`: the client stays usable, and its next query connects again. A
          // close that does not finish (a connection still trying a database that went away) is
          // ended as a per-request client would be, and the handle is not kept.
          let timer: ReturnType<typeof setTimeout> | undefined;
          const closed = await Promise.race([
            handle.sql.close().then(
              () => true,
              () => false,
            ),
            new Promise<false>((resolve) => {
              timer = setTimeout(() => resolve(false), CLOSE_TIMEOUT_MS);
            }),
          ]);
          clearTimeout(timer);
          if (!closed) await handle.sql.end({ timeout: 0 }).catch(() => {});
          else if (idle.length < IDLE_HANDLES) idle.push(handle);
        },
      };
    },
  };
}

function client(url: string, options: PostgresOptions) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Types are fixed by the schema; skipping the catalog query saves a round trip per connection.
    fetch_types: false,
    connect_timeout: options.connectTimeout ?? CONNECT_TIMEOUT_S,
    acquire_timeout: options.acquireTimeout ?? ACQUIRE_TIMEOUT_S,
    ...(options.idleTimeout ? { idle_timeout: options.idleTimeout } : {}),
    backoff: reconnectDelay,
    connection: { application_name: "loadout" },
  });
  const db: Database = drizzle(sql, {
    schema,
    ...(options.logQuery ? { logger: { logQuery: (q: string) => options.logQuery?.(q) } } : {}),
  });
  return { sql, db };
}

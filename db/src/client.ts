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
  /** Tests only: told the text of every query the app runs. */
  logQuery?: (query: string) => void;
}

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
 * Seconds before reconnecting after a failed connection: 0.05 s doubling up to 0.5 s, with
 * jitter. postgres.js's own backoff grows to 20 s, so after an outage of ten seconds or so the
 * pool would wait up to 20 s more before trying again; capped, it is back within half a second.
 */
export function reconnectDelay(retries: number): number {
  return Math.min(0.05 * 2 ** retries, 0.5) * (0.5 + Math.random() / 2);
}

/**
 * Connects to Postgres with postgres.js. Safe on Workers (no Node-only imports here):
 * postgres.js picks its Cloudflare sockets build under workerd.
 */
export function connectPostgres(url: string, options: PostgresOptions = {}): OpenedDatabase {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    // Types are fixed by the schema; skipping the catalog query saves a round trip per connection.
    fetch_types: false,
    connect_timeout: options.connectTimeout ?? CONNECT_TIMEOUT_S,
    acquire_timeout: options.acquireTimeout ?? ACQUIRE_TIMEOUT_S,
    backoff: reconnectDelay,
    connection: { application_name: "loadout" },
  });
  return {
    db: drizzle(sql, {
      schema,
      ...(options.logQuery ? { logger: { logQuery: (q: string) => options.logQuery?.(q) } } : {}),
    }),
    kind: "postgres",
    close: () => sql.end({ timeout: 5 }),
    // postgres.js holds one extra connection for LISTEN and reconnects it, calling onListen again.
    listen: async (channel, onMessage, onListen) => {
      const { unlisten } = await sql.listen(channel, onMessage, onListen);
      return { unlisten };
    },
  };
}

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
  /** Tests only: told the text of every query the app runs. */
  logQuery?: (query: string) => void;
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

import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { sql } from "drizzle-orm";
import { drizzle as drizzlePostgres } from "drizzle-orm/postgres-js";
import { migrate as migratePostgres } from "drizzle-orm/postgres-js/migrator";
import postgres from "postgres";
import { connectPostgres, type Database, type OpenedDatabase } from "./client";
import * as schema from "./schema";

/**
 * Node only: opening PGlite and applying migrations read files. Workers use `connectPostgres`.
 * Found through the package's own name, so that it holds wherever this module was bundled to.
 */
export const MIGRATIONS_FOLDER = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@loadout/db/package.json")),
  "migrations",
);

/** Any number, fixed: the advisory lock that serialises concurrent migrators on one Postgres. */
const MIGRATION_LOCK = 7_204_551;

export interface OpenDatabaseOptions {
  /** postgres://… ; when absent the embedded PGlite is used. */
  databaseUrl?: string | undefined;
  /** PGlite's data folder; `memory://` keeps everything in memory. */
  dataDir?: string | undefined;
  /** Pool size for Postgres. */
  max?: number;
  /** Apply migrations (default true). Idempotent. */
  migrate?: boolean;
  /** Tests only: told the text of every query the app runs. */
  logQuery?: (query: string) => void;
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<OpenedDatabase> {
  const shouldMigrate = options.migrate ?? true;
  if (options.databaseUrl) {
    if (shouldMigrate) await migratePostgresDatabase(options.databaseUrl);
    return connectPostgres(options.databaseUrl, {
      max: options.max ?? 10,
      ...(options.logQuery ? { logQuery: options.logQuery } : {}),
    });
  }
  // Loaded only here: a process on Postgres never needs PGlite or its driver (about 3 MiB of heap).
  const [{ PGlite }, { drizzle: drizzlePglite }, { migrate: migratePglite }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("drizzle-orm/pglite"),
    import("drizzle-orm/pglite/migrator"),
  ]);
  const dataDir = options.dataDir ?? path.resolve(".loadout/data");
  if (!dataDir.startsWith("memory://")) mkdirSync(dataDir, { recursive: true });
  const client = await PGlite.create(dataDir);
  const logQuery = options.logQuery;
  const db = drizzlePglite(client, {
    schema,
    ...(logQuery ? { logger: { logQuery: (q: string) => logQuery(q) } } : {}),
  });
  if (shouldMigrate) await migratePglite(db, { migrationsFolder: MIGRATIONS_FOLDER });
  return {
    db: db as unknown as Database,
    kind: "pglite",
    close: () => client.close(),
    // In-process: the listen cannot drop, so it is established once.
    listen: async (channel, onMessage, onListen) => {
      const unsubscribe = await client.listen(channel, onMessage);
      onListen();
      return { unlisten: () => unsubscribe() };
    },
  };
}

/** Applies migrations on one dedicated connection, holding an advisory lock so instances that start together do not race. */
export async function migratePostgresDatabase(databaseUrl: string): Promise<void> {
  const client = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const db = drizzlePostgres(client, { schema });
    await db.execute(sql`select pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      await migratePostgres(db, { migrationsFolder: MIGRATIONS_FOLDER });
    } finally {
      await db.execute(sql`select pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}

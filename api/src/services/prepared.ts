import type { Database } from "@loadout/db";

const cache = new WeakMap<Database, Map<string, unknown>>();

/**
 * A statement built once per database handle and reused: Drizzle's query building costs more
 * CPU than the hot queries themselves (principal lookup, `me`). On Workers each request has its
 * own handle, so there the cache simply lives for the request.
 */
export function prepared<T>(db: Database, name: string, build: (db: Database) => T): T {
  let statements = cache.get(db);
  if (!statements) {
    statements = new Map();
    cache.set(db, statements);
  }
  let statement = statements.get(name) as T | undefined;
  if (!statement) {
    statement = build(db);
    statements.set(name, statement);
  }
  return statement;
}

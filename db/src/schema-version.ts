import { sql } from "drizzle-orm";
import journal from "../migrations/meta/_journal.json";
import type { Database } from "./client";

/**
 * The last migration this build was made with, from drizzle-kit's journal. drizzle's migrator
 * records each applied migration with the journal's `when` as `created_at` and applies every one
 * newer than the last recorded, so a database whose newest record is older than this is behind.
 */
const last = journal.entries.at(-1);
export const BUILT_MIGRATION = { tag: last?.tag ?? "none", when: last?.when ?? 0 };

export type SchemaState = { kind: "current" } | { kind: "behind"; applied: number; expected: number };

/** Whether the database has every migration this build knows (one small query; no migration table counts as none). */
export async function schemaState(db: Database): Promise<SchemaState> {
  let newest = 0;
  let applied = 0;
  try {
    const rows = (await db.execute(
      sql`select count(*)::int as applied, coalesce(max(created_at), 0)::bigint as newest from drizzle.__drizzle_migrations`,
    )) as unknown as { applied: number; newest: string | number }[];
    applied = Number(rows[0]?.applied ?? 0);
    newest = Number(rows[0]?.newest ?? 0);
  } catch (error) {
    // 42P01 / 3F000: no migration table (or schema) yet, so nothing is applied.
    const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
    if (code !== "42P01" && code !== "3F000") throw error;
  }
  return newest >= BUILT_MIGRATION.when
    ? { kind: "current" }
    : { kind: "behind", applied, expected: journal.entries.length };
}

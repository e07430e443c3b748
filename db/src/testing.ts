import postgres from "postgres";
import type { OpenedDatabase } from "./client";
import { openDatabase } from "./open";

/**
 * A fresh, migrated database for one test file: in-memory PGlite by default, or a new
 * Postgres database (created here, dropped by `close`) when DATABASE_URL is set.
 */
export async function createTestDatabase(
  options: { logQuery?: (query: string) => void } = {},
): Promise<OpenedDatabase & { url?: string }> {
  const base = process.env.DATABASE_URL;
  if (!base) return openDatabase({ dataDir: "memory://", ...options });

  const name = `loadout_t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  const url = withDatabase(base, name);
  const opened = await openDatabase({ databaseUrl: url, max: 4, ...options });
  return {
    ...opened,
    url,
    async close() {
      await opened.close();
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

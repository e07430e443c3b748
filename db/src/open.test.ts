import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenedDatabase } from "./client";
import { newId } from "./ids";
import { migratePostgresDatabase, openDatabase } from "./open";
import { users } from "./schema";
import { createTestDatabase } from "./testing";

describe("createTestDatabase", () => {
  let opened: OpenedDatabase & { url?: string };
  beforeAll(async () => {
    opened = await createTestDatabase();
  });
  afterAll(async () => {
    await opened?.close();
  });

  it("opens the engine the environment asks for", () => {
    expect(opened.kind).toBe(process.env.DATABASE_URL ? "postgres" : "pglite");
  });

  it("has every table migrated and enforces unique emails", async () => {
    const id = newId("user");
    await opened.db.insert(users).values({ id, email: "a@example.com", passwordHash: "x" });
    await expect(
      opened.db.insert(users).values({ id: newId("user"), email: "a@example.com", passwordHash: "x" }),
    ).rejects.toThrow();
    const rows = await opened.db.select().from(users);
    expect(rows.map((r) => r.id)).toEqual([id]);
  });

  it("applies migrations idempotently", async () => {
    if (opened.url) {
      await migratePostgresDatabase(opened.url);
      await migratePostgresDatabase(opened.url);
    }
    const result = await opened.db.execute(sql`select count(*)::int as n from users`);
    const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
    expect(rows[0]?.n).toBe(1);
  });
});

describe("openDatabase with a PGlite data folder", () => {
  it("keeps data across reopen and re-migrates without error", async () => {
    const { mkdtempSync, rmSync } = await import("node:fs");
    const { tmpdir } = await import("node:os");
    const dir = mkdtempSync(`${tmpdir()}/loadout-pglite-`);
    try {
      const first = await openDatabase({ dataDir: dir });
      await first.db.insert(users).values({ id: newId("user"), email: "keep@example.com", passwordHash: "x" });
      await first.close();
      const second = await openDatabase({ dataDir: dir });
      const rows = await second.db.select().from(users);
      expect(rows.map((r) => r.email)).toEqual(["keep@example.com"]);
      await second.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

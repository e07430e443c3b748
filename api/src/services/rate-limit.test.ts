import { type OpenedDatabase, rateLimits } from "@loadout/db";
import { createTestDatabase } from "@loadout/db/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hitRateLimit, sweepRateLimits } from "./rate-limit";

let database: OpenedDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database.close());

describe("rate limits", () => {
  const rule = { limit: 2, windowSeconds: 60 };
  const t0 = new Date("2026-11-29T12:00:00Z");

  it("counts within a window, refuses past the limit, and starts again in the next window", async () => {
    expect((await hitRateLimit(database.db, "k", rule, t0)).allowed).toBe(true);
    expect((await hitRateLimit(database.db, "k", rule, new Date(t0.getTime() + 1000))).allowed).toBe(true);
    const refused = await hitRateLimit(database.db, "k", rule, new Date(t0.getTime() + 2000));
    expect(refused).toEqual({ allowed: false, retryAfter: 58 });
    expect((await hitRateLimit(database.db, "k", rule, new Date(t0.getTime() + 61_000))).allowed).toBe(true);
  });

  it("sweeps counters older than a day, and only those", async () => {
    await database.db.insert(rateLimits).values([
      { key: "old", windowStart: new Date(t0.getTime() - 2 * 86_400_000), count: 9 },
      { key: "recent", windowStart: new Date(t0.getTime() - 3_600_000), count: 9 },
    ]);
    await sweepRateLimits(database.db, t0);
    const keys = (await database.db.select({ key: rateLimits.key }).from(rateLimits)).map((r) => r.key).sort();
    expect(keys).toEqual(["k", "recent"]);
  });
});

import { cacheStamps, users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import { createTestApp, type TestApp, TestUser } from "../../testing";
import { subscribedUris, subscribeResource, subscriptionKey, unsubscribeResource } from "./legacy-subscriptions";
import { MAX_WATCHED_RESOURCES } from "./proxied";

let t: TestApp;
let userId: string;

beforeAll(async () => {
  t = await createTestApp();
  await TestUser.signUp(t.app, "subscriber@example.com");
  const [user] = await t.database.db.select().from(users).where(eq(users.email, "subscriber@example.com"));
  userId = user?.id ?? "";
});
afterAll(() => t.close());

const stampOf = async (key: string) =>
  (
    await t.database.db
      .select()
      .from(cacheStamps)
      .where(eq(cacheStamps.key, `sub:${key}`))
  )[0]?.n ?? 0;

describe("a 2025 session's resource subscriptions", () => {
  it("are keyed by a digest of the owner that can name a feed counter, never by the session id", () => {
    const key = subscriptionKey("lo1.abc.def\u0000token\u0000tok_1");
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(subscriptionKey("lo1.abc.def\u0000token\u0000tok_2")).not.toBe(key);
  });

  it("are kept, read back sorted, and let go; each change moves the session's counter", async () => {
    const key = subscriptionKey("owner-one");
    const now = new Date();
    const before = await stampOf(key);
    await subscribeResource(t.database.db, key, userId, "memo://notes/2", now);
    await subscribeResource(t.database.db, key, userId, "memo://notes/1", now);
    // Again: kept once.
    await subscribeResource(t.database.db, key, userId, "memo://notes/1", now);
    expect(await subscribedUris(t.database.db, key, now)).toEqual(["memo://notes/1", "memo://notes/2"]);
    expect(await stampOf(key)).toBeGreaterThan(before);
    const kept = await stampOf(key);
    await unsubscribeResource(t.database.db, key, "memo://notes/2");
    expect(await subscribedUris(t.database.db, key, now)).toEqual(["memo://notes/1"]);
    expect(await stampOf(key)).toBeGreaterThan(kept);
    // Another session's are its own.
    expect(await subscribedUris(t.database.db, subscriptionKey("owner-two"), now)).toEqual([]);
  });

  it("are at most MAX_WATCHED_RESOURCES per session, refused past it with what to do", async () => {
    const key = subscriptionKey("owner-many");
    const now = new Date();
    for (let i = 0; i < MAX_WATCHED_RESOURCES; i++)
      await subscribeResource(t.database.db, key, userId, `memo://many/${i}`, now);
    const refused = await subscribeResource(t.database.db, key, userId, "memo://many/one-more", now).catch((e) => e);
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).message).toMatch(/unsubscribe from one first/);
    // One it holds already, again: accepted, and still the same number.
    await subscribeResource(t.database.db, key, userId, "memo://many/0", now);
    expect(await subscribedUris(t.database.db, key, now)).toHaveLength(MAX_WATCHED_RESOURCES);
  });

  it("are let go a week after a stream last read them, when the user subscribes again", async () => {
    const stale = subscriptionKey("owner-stale");
    const fresh = subscriptionKey("owner-fresh");
    const then = new Date("2026-11-01T00:00:00Z");
    await subscribeResource(t.database.db, stale, userId, "memo://stale", then);
    await subscribeResource(t.database.db, fresh, userId, "memo://fresh", new Date(then.getTime() + 6 * 86_400_000));
    await subscribeResource(t.database.db, fresh, userId, "memo://fresh/2", new Date(then.getTime() + 8 * 86_400_000));
    expect(await subscribedUris(t.database.db, stale, new Date())).toEqual([]);
    expect(await subscribedUris(t.database.db, fresh, new Date())).toEqual(["memo://fresh", "memo://fresh/2"]);
  });
});

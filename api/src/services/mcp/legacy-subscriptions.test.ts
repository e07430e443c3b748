import { cacheStamps, users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
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
/** Whether the session's `sub:<key>` row is in cache_stamps at all (absent reads as 0 above). */
const stampKept = async (key: string) =>
  (
    await t.database.db
      .select()
      .from(cacheStamps)
      .where(eq(cacheStamps.key, `sub:${key}`))
  ).length === 1;

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

describe("a 2025 session's counter (cache_stamps `sub:<key>`)", () => {
  it("is kept while the session holds a subscription and goes with the last, once told", async () => {
    const key = subscriptionKey("owner-counter");
    const now = new Date();
    // Every value a poller of this session could have read.
    const seen = [await stampOf(key)];
    await subscribeResource(t.database.db, key, userId, "memo://counter/1", now);
    expect(await stampKept(key)).toBe(true);
    seen.push(await stampOf(key));
    await subscribeResource(t.database.db, key, userId, "memo://counter/2", now);
    seen.push(await stampOf(key));
    await unsubscribeResource(t.database.db, key, "memo://counter/1");
    // One left: kept, and moved.
    expect(await stampKept(key)).toBe(true);
    expect(seen).not.toContain(await stampOf(key));
    seen.push(await stampOf(key));
    const heard: string[] = [];
    const listening = await t.database.listen?.(
      "loadout_invalidate",
      (payload) => heard.push(payload),
      () => {},
    );
    await unsubscribeResource(t.database.db, key, "memo://counter/2");
    // None left: told as before to those who listen, and gone (a poller reads 0, not what it saw).
    await vi.waitFor(() => expect(heard).toContain(`sub:${key}`));
    await listening?.unlisten();
    expect(await stampKept(key)).toBe(false);
    expect(await subscribedUris(t.database.db, key, now)).toEqual([]);
    // Subscribing again makes it again, at a value none of its polls read before: counting from 1
    // again, a stream that polled 1 before and 1 now would never watch the new resource.
    await subscribeResource(t.database.db, key, userId, "memo://counter/3", now);
    expect(await stampKept(key)).toBe(true);
    expect(seen).not.toContain(await stampOf(key));
  });

  it("goes when the session's last subscriptions are let go a week after a stream last read them", async () => {
    // A user of its own: the week-old rows let go are all of the user's.
    await TestUser.signUp(t.app, "expiring@example.com");
    const [user] = await t.database.db.select().from(users).where(eq(users.email, "expiring@example.com"));
    const expiring = user?.id ?? "";
    const gone = subscriptionKey("owner-expired");
    const partly = subscriptionKey("owner-partly-read");
    const then = new Date("2026-10-01T00:00:00Z");
    const days = (n: number) => new Date(then.getTime() + n * 86_400_000);
    await subscribeResource(t.database.db, gone, expiring, "memo://expired/1", then);
    await subscribeResource(t.database.db, gone, expiring, "memo://expired/2", then);
    await subscribeResource(t.database.db, partly, expiring, "memo://partly/old", then);
    await subscribeResource(t.database.db, partly, expiring, "memo://partly/new", days(5));
    expect(await stampKept(gone)).toBe(true);
    // Eight days on: every row of `gone` is let go, and one of `partly`'s.
    await subscribeResource(t.database.db, partly, expiring, "memo://partly/newer", days(8));
    expect(await stampKept(gone)).toBe(false);
    expect(await stampKept(partly)).toBe(true);
    expect(await subscribedUris(t.database.db, partly, days(8))).toEqual(["memo://partly/new", "memo://partly/newer"]);
  });
});

import { mcpSessionLevels, users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp, TestUser } from "../../testing";
import { keepSessionLevel, sessionLevel } from "./legacy-levels";
import { subscriptionKey } from "./legacy-subscriptions";

let t: TestApp;
let userId: string;

beforeAll(async () => {
  t = await createTestApp();
  await TestUser.signUp(t.app, "leveller@example.com");
  const [user] = await t.database.db.select().from(users).where(eq(users.email, "leveller@example.com"));
  userId = user?.id ?? "";
});
afterAll(() => t.close());

describe("a 2025 session's log level", () => {
  it("is kept for its session alone, and the last one set wins", async () => {
    const one = subscriptionKey("level-owner-one");
    const two = subscriptionKey("level-owner-two");
    expect(await sessionLevel(t.database.db, one)).toBeNull();
    await keepSessionLevel(t.database.db, one, userId, "warning", new Date());
    expect(await sessionLevel(t.database.db, one)).toBe("warning");
    await keepSessionLevel(t.database.db, one, userId, "debug", new Date());
    expect(await sessionLevel(t.database.db, one)).toBe("debug");
    expect(await sessionLevel(t.database.db, two)).toBeNull();
  });

  it("lets go of the user's levels not set for a month when one is set", async () => {
    const old = subscriptionKey("level-owner-old");
    const fresh = subscriptionKey("level-owner-fresh");
    const now = new Date();
    await keepSessionLevel(t.database.db, old, userId, "error", new Date(now.getTime() - 31 * 86_400_000));
    await keepSessionLevel(t.database.db, fresh, userId, "info", now);
    expect(await sessionLevel(t.database.db, old)).toBeNull();
    expect(await sessionLevel(t.database.db, fresh)).toBe("info");
    const rows = await t.database.db.select().from(mcpSessionLevels).where(eq(mcpSessionLevels.userId, userId));
    expect(rows.map((r) => r.sessionKey)).not.toContain(old);
  });
});

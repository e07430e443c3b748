import { cacheStamps, type OpenedDatabase } from "@loadout/db";
import { createTestDatabase } from "@loadout/db/testing";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Freshness, PolledFreshness } from "./freshness";
import { type ChangeFeedClient, counterCursor, pollStamps, readCursor, stampLiterals } from "./stamps";

describe("stampLiterals", () => {
  it("lists keys made of a stamp key's characters as literals", () => {
    expect(stampLiterals(["user:usr_01jabc", "ws:ws_01jdef"])).toBe("'user:usr_01jabc', 'ws:ws_01jdef'");
  });

  it("refuses any key that holds another character, and an empty list", () => {
    for (const key of ["user:usr_a'; drop table users; --", "user:USR_A", "user:usr a", "user:usr\\a", "ws:", "ws_a"])
      expect(stampLiterals(["user:usr_ok", key]), key).toBeNull();
    expect(stampLiterals([])).toBeNull();
  });
});

describe("counterCursor", () => {
  const keys = ["user:usr_a", "ws:ws_b", "ws:ws_c"];
  const counters = new Map([
    ["user:usr_a", 3],
    ["ws:ws_b", 7],
  ]);

  it("is the same for the same counters, whatever the order of their keys", () => {
    const cursor = counterCursor(keys, counters);
    expect(cursor).toMatch(/^c1\.[0-9a-f]{16}$/);
    expect(counterCursor([...keys].reverse(), new Map([...counters].reverse()))).toBe(cursor);
  });

  it("differs when any counter moved, a key never bumped is bumped, or the keys differ", () => {
    const cursor = counterCursor(keys, counters);
    expect(counterCursor(keys, new Map([...counters, ["ws:ws_b", 8]]))).not.toBe(cursor);
    expect(counterCursor(keys, new Map([...counters, ["ws:ws_c", 1]]))).not.toBe(cursor);
    expect(counterCursor(keys.slice(0, 2), counters)).not.toBe(cursor);
  });
});

describe("pollStamps, on the test database (PGlite, or Postgres with DATABASE_URL)", () => {
  let db: OpenedDatabase;
  const queries: string[] = [];
  beforeAll(async () => {
    db = await createTestDatabase({ logQuery: (query) => queries.push(query) });
    await db.db.insert(cacheStamps).values([
      { key: "user:usr_a", n: 1 },
      { key: "ws:ws_b", n: 5 },
    ]);
  });
  afterAll(() => db?.close());

  it("reads the counters in one statement without parameters, and hears each one move", async () => {
    const polled = new PolledFreshness();
    const before = [polled.userStamp("usr_a"), polled.workspaceStamp(["ws_b"])];
    queries.length = 0;
    await pollStamps(db.db, polled, "usr_a", ["ws_b"]);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain("in ('user:usr_a', 'ws:ws_b')");
    expect(queries[0]).not.toContain("$1");
    const first = [polled.userStamp("usr_a"), polled.workspaceStamp(["ws_b"])];
    expect(first[0]).not.toBe(before[0]);
    expect(first[1]).not.toBe(before[1]);

    await pollStamps(db.db, polled, "usr_a", ["ws_b"]);
    expect([polled.userStamp("usr_a"), polled.workspaceStamp(["ws_b"])]).toEqual(first);

    await db.db.update(cacheStamps).set({ n: 2 }).where(eq(cacheStamps.key, "user:usr_a"));
    await pollStamps(db.db, polled, "usr_a", ["ws_b"]);
    expect(polled.userStamp("usr_a")).not.toBe(first[0]);
    expect(polled.workspaceStamp(["ws_b"])).toBe(first[1]);
  });

  it("binds keys it cannot inline as parameters, and reads them the same", async () => {
    const odd = "usr_a' or 'x'='x";
    const polled = new PolledFreshness();
    queries.length = 0;
    await pollStamps(db.db, polled, odd, ["ws_b"]);
    expect(queries).toHaveLength(1);
    expect(queries[0]).toContain("$1");
    const first = [polled.userStamp(odd), polled.workspaceStamp(["ws_b"])];
    // The odd key matches no row (it is not `user:usr_a`), and the workspace's row is read through
    // the parameters: its counter moving is heard, another user's is not.
    await db.db.update(cacheStamps).set({ n: 3 }).where(eq(cacheStamps.key, "user:usr_a"));
    await pollStamps(db.db, polled, odd, ["ws_b"]);
    expect([polled.userStamp(odd), polled.workspaceStamp(["ws_b"])]).toEqual(first);
    await db.db.update(cacheStamps).set({ n: 6 }).where(eq(cacheStamps.key, "ws:ws_b"));
    await pollStamps(db.db, polled, odd, ["ws_b"]);
    expect(polled.workspaceStamp(["ws_b"])).not.toBe(first[1]);
    expect(polled.userStamp(odd)).toBe(first[0]);
  });

  it("takes the stamps from a live change feed without a statement, and reads Postgres when it cannot answer", async () => {
    const feed = new Freshness();
    feed.listened();
    const answers: (Record<string, string> | null | Error)[] = [];
    const client: ChangeFeedClient = {
      stamps: async (keys) => {
        const next = answers.shift();
        if (next instanceof Error) throw next;
        return next === undefined ? Object.fromEntries(keys.map((k) => [k, `e1.${feed.keyStamp(k)}`])) : next;
      },
      caughtUp: async () => true,
    };
    const polled = new PolledFreshness();
    queries.length = 0;
    await pollStamps(db.db, polled, "usr_a", ["ws_b"], client);
    const first = [polled.userStamp("usr_a"), polled.workspaceStamp(["ws_b"])];
    await pollStamps(db.db, polled, "usr_a", ["ws_b"], client);
    expect(queries).toEqual([]);
    expect([polled.userStamp("usr_a"), polled.workspaceStamp(["ws_b"])]).toEqual(first);
    // What the feed hears moves that key's stamp, and only that one.
    feed.receive("ws:ws_b");
    await pollStamps(db.db, polled, "usr_a", ["ws_b"], client);
    expect(polled.userStamp("usr_a")).toBe(first[0]);
    expect(polled.workspaceStamp(["ws_b"])).not.toBe(first[1]);
    // Not live (null), failing, or an answer without every key: one statement instead, and a
    // change of source counts as a change.
    for (const answer of [null, new Error("object gone"), { "user:usr_a": "e1.1.0" }]) {
      await pollStamps(db.db, polled, "usr_a", ["ws_b"], client);
      answers.push(answer);
      queries.length = 0;
      const before = polled.userStamp("usr_a");
      await pollStamps(db.db, polled, "usr_a", ["ws_b"], client);
      expect(queries).toHaveLength(1);
      expect(polled.userStamp("usr_a")).not.toBe(before);
    }
  });

  it("reads a cursor in one statement, moved by a counter the triggers bump", async () => {
    queries.length = 0;
    const cursor = await readCursor(db.db, ["user:usr_a", "ws:ws_b"]);
    expect(queries).toHaveLength(1);
    expect(await readCursor(db.db, ["ws:ws_b", "user:usr_a"])).toBe(cursor);
    await db.db.execute(sql`select loadout_touch('ws:ws_b')`);
    expect(await readCursor(db.db, ["user:usr_a", "ws:ws_b"])).not.toBe(cursor);
  });
});

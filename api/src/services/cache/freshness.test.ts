import type { OpenedDatabase } from "@loadout/db";
import { describe, expect, it } from "vitest";
import { memoryLogger } from "../../logger";
import { Freshness, PolledFreshness, stampKeys, startDatabaseFreshness } from "./freshness";
import { HotCaches } from "./hot";
import { StampedCache } from "./stamped-cache";

function listening() {
  const f = new Freshness();
  f.listened();
  return f;
}

describe("Freshness", () => {
  it("is not live until it listens, and stops being live when it stops", () => {
    const f = new Freshness();
    expect(f.live).toBe(false);
    f.listened();
    expect(f.live).toBe(true);
    f.stopped();
    expect(f.live).toBe(false);
  });

  it("moves a user's stamp on a change to that user only", () => {
    const f = listening();
    const alice = f.userStamp("usr_a");
    const bob = f.userStamp("usr_b");
    f.receive("user:usr_a");
    expect(f.userStamp("usr_a")).not.toBe(alice);
    expect(f.userStamp("usr_b")).toBe(bob);
  });

  it("moves a workspace set's stamp when any one of them changes", () => {
    const f = listening();
    const both = f.workspaceStamp(["ws_1", "ws_2"]);
    const other = f.workspaceStamp(["ws_3"]);
    f.receive("ws:ws_2");
    expect(f.workspaceStamp(["ws_1", "ws_2"])).not.toBe(both);
    expect(f.workspaceStamp(["ws_3"])).toBe(other);
  });

  it("moves every stamp when it listens again (what was sent meanwhile is lost) or hears something unknown", () => {
    const f = listening();
    const user = f.userStamp("usr_a");
    const ws = f.workspaceStamp(["ws_1"]);
    f.listened();
    expect(f.userStamp("usr_a")).not.toBe(user);
    expect(f.workspaceStamp(["ws_1"])).not.toBe(ws);
    const again = f.userStamp("usr_a");
    f.receive("something-new:x");
    expect(f.userStamp("usr_a")).not.toBe(again);
  });

  it("drops everything after a write answered here (read-your-writes before the notification)", () => {
    const f = listening();
    const user = f.userStamp("usr_a");
    const sequence = f.sequence;
    f.wroteHere();
    expect(f.userStamp("usr_a")).not.toBe(user);
    expect(f.sequence).toBe(sequence + 1);
    expect(f.live).toBe(true);
  });

  it("tells a session's subscription change to its watchers and moves its key's stamp, and nothing cached", () => {
    const f = listening();
    const heard: unknown[] = [];
    f.watch((change) => heard.push(change));
    const user = f.userStamp("usr_a");
    const sequence = f.sequence;
    const sub = f.keyStamp("sub:0a1b");
    const other = f.keyStamp("sub:ffff");
    f.receive("sub:0a1b");
    expect(heard).toEqual([{ sessionKey: "0a1b" }]);
    expect(f.keyStamp("sub:0a1b")).not.toBe(sub);
    expect(f.keyStamp("sub:ffff")).toBe(other);
    // No cached value depends on a subscription: what the caches hold still holds.
    expect(f.userStamp("usr_a")).toBe(user);
    expect(f.sequence).toBe(sequence);
  });

  it("counts changes in its sequence, but not its own heartbeat", () => {
    const f = listening();
    const before = f.sequence;
    f.receive("ping:abc");
    expect(f.sequence).toBe(before);
    f.receive("user:usr_a");
    expect(f.sequence).toBe(before + 1);
  });

  it("stops being live when a heartbeat does not come back before the next, and recovers when one does", () => {
    const f = listening();
    f.heartbeat("n1", 0);
    f.receive("ping:n1");
    f.heartbeat("n2", 5_000);
    expect(f.live).toBe(true);
    const stamp = f.userStamp("usr_a");
    // n2 never came back.
    f.heartbeat("n3", 10_000);
    expect(f.live).toBe(false);
    expect(f.userStamp("usr_a")).not.toBe(stamp);
    // Another instance's ping is not ours.
    f.receive("ping:n2-of-someone-else");
    expect(f.live).toBe(false);
    f.receive("ping:n3");
    expect(f.live).toBe(true);
  });
});

describe("StampedCache", () => {
  it("serves a value only under the stamp it was stored with, and not past its age", () => {
    const cache = new StampedCache<string>(10, 1_000);
    cache.set("k", "s1", "v", 0);
    expect(cache.get("k", "s1", 500)).toBe("v");
    expect(cache.get("k", "s2", 500)).toBeUndefined();
    // The mismatch dropped it.
    expect(cache.get("k", "s1", 500)).toBeUndefined();
    cache.set("k", "s1", "v", 0);
    expect(cache.get("k", "s1", 1_001)).toBeUndefined();
  });

  it("keeps at most max entries, dropping the oldest stored", () => {
    const cache = new StampedCache<number>(2);
    cache.set("a", "s", 1, 0);
    cache.set("b", "s", 2, 0);
    cache.set("c", "s", 3, 0);
    expect(cache.get("a", "s", 0)).toBeUndefined();
    expect(cache.get("b", "s", 0)).toBe(2);
    expect(cache.get("c", "s", 0)).toBe(3);
  });
});

describe("HotCaches.byWorkspaces", () => {
  it("reads through every time while the feed is not live", async () => {
    const f = new Freshness();
    const hot = new HotCaches(f);
    let reads = 0;
    const read = async () => ++reads;
    await hot.byWorkspaces("k", ["ws_1"], read);
    await hot.byWorkspaces("k", ["ws_1"], read);
    expect(reads).toBe(2);
  });

  it("serves from memory until one of the workspaces changes", async () => {
    const f = listening();
    const hot = new HotCaches(f);
    let reads = 0;
    const read = async () => ++reads;
    expect(await hot.byWorkspaces("k", ["ws_1", "ws_2"], read)).toBe(1);
    expect(await hot.byWorkspaces("k", ["ws_1", "ws_2"], read)).toBe(1);
    f.receive("ws:ws_3");
    expect(await hot.byWorkspaces("k", ["ws_1", "ws_2"], read)).toBe(1);
    f.receive("ws:ws_1");
    expect(await hot.byWorkspaces("k", ["ws_1", "ws_2"], read)).toBe(2);
  });

  it("does not serve a value read while its workspace changed", async () => {
    const f = listening();
    const hot = new HotCaches(f);
    let reads = 0;
    const racing = async () => {
      reads++;
      // The change commits (and is heard) while this read is under way.
      f.receive("ws:ws_1");
      return "old";
    };
    await hot.byWorkspaces("k", ["ws_1"], racing);
    expect(await hot.byWorkspaces("k", ["ws_1"], async () => "new")).toBe("new");
    expect(reads).toBe(1);
  });

  it("caches a null answer (nothing of that name) like any other", async () => {
    const f = listening();
    const hot = new HotCaches(f);
    let reads = 0;
    const read = async () => {
      reads++;
      return null;
    };
    await hot.byWorkspaces("k", ["ws_1"], read);
    expect(await hot.byWorkspaces("k", ["ws_1"], read)).toBeNull();
    expect(reads).toBe(1);
  });
});

describe("startDatabaseFreshness", () => {
  it("serves without caches, and says so, when the database cannot listen", async () => {
    const logger = memoryLogger();
    const database = {
      listen: async () => {
        throw new Error("LISTEN is not supported by this pooler");
      },
    } as unknown as OpenedDatabase;
    expect(await startDatabaseFreshness(database, logger)).toBeNull();
    expect(logger.entries).toEqual([
      expect.objectContaining({ level: "warn", error: "LISTEN is not supported by this pooler" }),
    ]);
  });

  it("is live once listening, hears changes, and stops being live when closed", async () => {
    let deliver: (payload: string) => void = () => {};
    const database = {
      listen: async (_channel: string, onMessage: (payload: string) => void, onListen: () => void) => {
        deliver = onMessage;
        onListen();
        return { unlisten: async () => {} };
      },
      db: { execute: async () => [] },
    } as unknown as OpenedDatabase;
    const feed = await startDatabaseFreshness(database, memoryLogger(), 60_000);
    expect(feed?.freshness.live).toBe(true);
    const stamp = feed?.freshness.userStamp("usr_a");
    deliver("user:usr_a");
    expect(feed?.freshness.userStamp("usr_a")).not.toBe(stamp);
    await feed?.close();
    expect(feed?.freshness.live).toBe(false);
  });

  it("is caught up only once its own mark comes back, after what was sent before it", async () => {
    let deliver: (payload: string) => void = () => {};
    const sent: string[] = [];
    const database = {
      listen: async (_channel: string, onMessage: (payload: string) => void, onListen: () => void) => {
        deliver = onMessage;
        onListen();
        return { unlisten: async () => {} };
      },
      db: {
        execute: async (query: { queryChunks: unknown[] }) => {
          sent.push(JSON.stringify(query.queryChunks));
          return [];
        },
      },
    } as unknown as OpenedDatabase;
    const feed = await startDatabaseFreshness(database, memoryLogger(), 60_000);
    let caught = false;
    const waiting = feed?.caughtUp().then(() => {
      caught = true;
    });
    await new Promise((r) => setTimeout(r, 10));
    const mark = /"(ping:[^"]+)"/.exec(sent[0] ?? "")?.[1];
    expect(mark).toMatch(/^ping:.+-mark-1$/);
    deliver("user:usr_a");
    deliver("ping:someone-else");
    await new Promise((r) => setTimeout(r, 10));
    expect(caught).toBe(false);
    deliver(mark ?? "");
    await waiting;
    expect(caught).toBe(true);
    // A mark lost with the listen: listening again drops every cache, which is as good as caught up.
    const lost = feed?.caughtUp();
    feed?.freshness.listened();
    await lost;
    await feed?.close();
  });
});

describe("PolledFreshness", () => {
  it("counts a counter first seen, or moved, as a change of its key, and an unmoved one as none", () => {
    const f = new PolledFreshness();
    expect(f.live).toBe(true);
    const keys = stampKeys("usr_a", ["ws_1", "ws_2"]);
    expect(keys).toEqual(["user:usr_a", "ws:ws_1", "ws:ws_2"]);
    const user = f.userStamp("usr_a");
    const both = f.workspaceStamp(["ws_1", "ws_2"]);
    // First seen (a key never bumped reads as absent): whatever was kept before no longer holds.
    f.apply(keys, new Map([["ws:ws_1", 4]]));
    expect(f.userStamp("usr_a")).not.toBe(user);
    expect(f.workspaceStamp(["ws_1", "ws_2"])).not.toBe(both);
    const seenUser = f.userStamp("usr_a");
    const seen = f.workspaceStamp(["ws_1", "ws_2"]);
    f.apply(keys, new Map([["ws:ws_1", 4]]));
    expect(f.userStamp("usr_a")).toBe(seenUser);
    expect(f.workspaceStamp(["ws_1", "ws_2"])).toBe(seen);
    // One workspace's counter moved: its stamps move, the user's do not.
    f.apply(keys, new Map([["ws:ws_1", 5]]));
    expect(f.workspaceStamp(["ws_1", "ws_2"])).not.toBe(seen);
    expect(f.userStamp("usr_a")).toBe(seenUser);
  });

  it("serves a cached value through a request's view only while the counters it was read under hold", async () => {
    const polled = new PolledFreshness();
    const hot = new HotCaches(null);
    // The instance's own caches serve nothing without a feed; a view shares their stores.
    expect(hot.live).toBeNull();
    const view = hot.view(polled);
    const keys = stampKeys("usr_a", ["ws_1"]);
    polled.apply(keys, new Map([["ws:ws_1", 1]]));
    let reads = 0;
    const read = async () => ++reads;
    expect(await view.byWorkspaces("k", ["ws_1"], read)).toBe(1);
    expect(await hot.view(polled).byWorkspaces("k", ["ws_1"], read)).toBe(1);
    expect(await hot.byWorkspaces("k", ["ws_1"], read)).toBe(2);
    polled.apply(keys, new Map([["ws:ws_1", 2]]));
    expect(await view.byWorkspaces("k", ["ws_1"], read)).toBe(3);
  });
});

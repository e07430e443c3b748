import type { ServerEvent } from "@modelcontextprotocol/server";
import { describe, expect, it } from "vitest";
import { Freshness } from "../services/cache/freshness";
import { bothSources, concerns, listChanges, polledChanges } from "./list-changes";

const scope = { userId: "usr_a", workspaceIds: ["ws_a", "ws_team"] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("concerns", () => {
  it("is the session's user, its workspaces, or a change that may have been missed", () => {
    expect(concerns(scope, { userId: "usr_a" })).toBe(true);
    expect(concerns(scope, { workspaceId: "ws_team" })).toBe(true);
    expect(concerns(scope, "all")).toBe(true);
    expect(concerns(scope, { userId: "usr_b" })).toBe(false);
    expect(concerns(scope, { workspaceId: "ws_b" })).toBe(false);
    // A session's subscriptions changed: no list did.
    expect(concerns(scope, { sessionKey: "0a1b" })).toBe(false);
  });
});

describe("listChanges", () => {
  it("tells the three lists once for changes that come together, and only the session's", async () => {
    const feed = new Freshness();
    const bus = listChanges(feed, scope, 20);
    const heard: ServerEvent["kind"][] = [];
    const stop = bus.subscribe((event) => heard.push(event.kind));
    feed.receive("ws:ws_b");
    feed.receive("user:usr_b");
    await sleep(40);
    expect(heard).toEqual([]);
    feed.receive("ws:ws_a");
    feed.receive("user:usr_a");
    feed.receive("ws:ws_team");
    await sleep(40);
    expect(heard).toEqual(["tools_list_changed", "prompts_list_changed", "resources_list_changed"]);
    stop();
    feed.receive("ws:ws_a");
    await sleep(40);
    expect(heard).toHaveLength(3);
  });

  it("stops watching the feed when its stream goes, with a change pending", async () => {
    const feed = new Freshness();
    const watched: string[] = [];
    const original = feed.watch.bind(feed);
    feed.watch = (watcher) => {
      watched.push("on");
      const stop = original(watcher);
      return () => {
        watched.push("off");
        stop();
      };
    };
    const bus = listChanges(feed, scope, 20);
    const heard: string[] = [];
    const stop = bus.subscribe((event) => heard.push(event.kind));
    feed.receive("ws:ws_a");
    stop();
    await sleep(40);
    expect(heard).toEqual([]);
    expect(watched).toEqual(["on", "off"]);
  });

  it("hears a feed that listens again after a drop as a change of everything", async () => {
    const feed = new Freshness();
    feed.listened();
    const bus = listChanges(feed, scope, 10);
    const heard: string[] = [];
    bus.subscribe((event) => heard.push(event.kind));
    feed.listened();
    await sleep(30);
    expect(heard).toContain("tools_list_changed");
  });
});

describe("polledChanges", () => {
  it("hears a counter that moved after the first read, polled while the stream is open, and stops with it", async () => {
    const counters = new Map([
      ["user:usr_a", 4],
      ["ws:ws_a", 9],
    ]);
    let polls = 0;
    const { feed, source } = await polledChanges(async (into) => {
      polls++;
      into.apply([...counters.keys(), "ws:ws_team"], counters);
    }, 10);
    expect(polls).toBe(1);
    const bus = listChanges(feed, scope, 5, bothSources(source, null));
    const heard: ServerEvent["kind"][] = [];
    const stop = bus.subscribe((event) => heard.push(event.kind));
    await sleep(40);
    // What the first read saw is no change.
    expect(heard).toEqual([]);
    counters.set("ws:ws_a", 10);
    await expect.poll(() => heard, { timeout: 1_000 }).toContain("tools_list_changed");
    stop();
    const after = polls;
    await sleep(40);
    expect(polls).toBe(after);
  });
});

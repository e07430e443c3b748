import { beforeEach, describe, expect, it } from "vitest";
import type { ResolvedBearer } from "../auth/resolve-bearer";
import { Freshness } from "../cache/freshness";
import { HotCaches } from "../cache/hot";
import { type SessionInputs, sessionKey } from "./session";
import { SessionMemo } from "./session-memo";

const NOW = new Date("2026-11-30T08:00:00Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe("sessionKey", () => {
  const inputs: SessionInputs = {
    bearer: "k1",
    url: "https://loadout.example/mcp",
    host: "loadout.example",
    scheme: "https",
    origin: "https://app.example",
    mode: "plan",
    project: "/repo",
  };

  it("is the same for the same inputs", () => {
    expect(sessionKey({ ...inputs })).toBe(sessionKey(inputs));
  });

  it.each(Object.keys(inputs))("changes with the %s input", (name) => {
    expect(sessionKey({ ...inputs, [name]: "other" })).not.toBe(sessionKey(inputs));
    expect(sessionKey({ ...inputs, [name]: "" })).not.toBe(sessionKey(inputs));
  });

  it("cannot be made equal by moving a value from one input to the next", () => {
    expect(sessionKey({ ...inputs, mode: "plan\n", project: "/repo" })).not.toBe(
      sessionKey({ ...inputs, mode: "plan", project: "\n/repo" }),
    );
  });
});

describe("SessionMemo", () => {
  let freshness: Freshness;
  let hot: HotCaches;
  let memo: SessionMemo<string, string>;
  const resolved = { principal: { kind: "token", userId: "u1", tokenId: "t1" } } as unknown as ResolvedBearer;
  let current = true;
  const direct = {
    get current() {
      return current;
    },
    call: async () => ({ content: [] }),
  };

  /** The principal cached for bearer "b1", as principalFromBearer keeps it. */
  const cacheBearer = (value: ResolvedBearer = resolved) =>
    hot.bearers.set("b1", { stamp: freshness.userStamp("u1"), storedAt: NOW.getTime(), value });

  /** u1's session, decided now, with a call to a tool of workspace w1. */
  const decide = (key = "key") => {
    const sequence = freshness.sequence;
    const remembered = memo.keep(key, "b1", sequence, NOW, "session", resolved.principal);
    if (remembered) memo.keepTool(remembered, "gh_search", sequence, ["w1"], "tool", direct);
    return remembered;
  };

  beforeEach(() => {
    freshness = new Freshness();
    freshness.listened();
    hot = new HotCaches(freshness);
    memo = new SessionMemo(hot, 3);
    current = true;
    cacheBearer();
    if (!decide()) throw new Error("no session kept");
  });

  const tool = (at = later(1000)) => {
    const remembered = memo.find("key", "b1", at);
    return remembered && memo.tool(remembered, "gh_search");
  };

  it("serves a session and its tool while everything they were decided under holds", () => {
    expect(memo.find("key", "b1", later(1000))?.session).toBe("session");
    expect(tool()?.tool).toBe("tool");
    // A change to another user or workspace is not this session's business.
    freshness.receive("user:u2");
    freshness.receive("ws:w2");
    expect(tool(later(2000))?.tool).toBe("tool");
  });

  it.each([
    ["its user changed (a token revoked, a membership)", () => freshness.receive("user:u1")],
    ["notifications may have been lost", () => freshness.receive("reset:")],
    ["the change feed stopped", () => freshness.stopped()],
    ["the cache dropped the principal", () => hot.bearers.delete("b1")],
    ["the cache holds another principal for the bearer", () => cacheBearer({ ...resolved })],
  ])("drops a session once %s", (_, change) => {
    change();
    expect(memo.find("key", "b1", later(1000))).toBeUndefined();
    // Dropped, not just skipped: it is not served again when things look right once more.
    freshness.listened();
    cacheBearer();
    expect(memo.find("key", "b1", later(1000))).toBeUndefined();
  });

  it.each([
    ["its workspace changed (a tool switched off, a server narrowed)", () => freshness.receive("ws:w1")],
    ["the pool dropped the connection", () => (current = false)],
  ])("drops a tool, not its session, once %s", (_, change) => {
    change();
    expect(tool()).toBeUndefined();
    current = true;
    expect(tool()).toBeUndefined();
    expect(memo.find("key", "b1", later(1000))).toBeDefined();
  });

  it("serves a session for at most a minute, whatever was heard", () => {
    expect(memo.find("key", "b1", later(60_001))).toBeUndefined();
  });

  it("keeps nothing decided while something was heard of", () => {
    const sequence = freshness.sequence;
    freshness.receive("ws:w9");
    expect(memo.keep("other", "b1", sequence, NOW, "session", resolved.principal)).toBeUndefined();
    expect(memo.keep("other", "b1", undefined, NOW, "session", resolved.principal)).toBeUndefined();
    const remembered = memo.find("key", "b1", later(1));
    if (!remembered) throw new Error("no session");
    memo.keepTool(remembered, "gh_issue", sequence, ["w1"], "tool", null);
    expect(memo.tool(remembered, "gh_issue")).toBeUndefined();
  });

  it("keeps no session for a principal the cache does not serve for the bearer", () => {
    const other = { ...resolved.principal };
    expect(memo.keep("other", "b1", freshness.sequence, NOW, "session", other)).toBeUndefined();
  });

  it("stays bounded: past its size it starts again", () => {
    decide("a");
    decide("b");
    expect(memo.size).toBe(3);
    decide("c");
    expect(memo.size).toBe(1);
    expect(memo.find("c", "b1", later(1))).toBeDefined();
  });
});

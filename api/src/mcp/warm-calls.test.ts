import { beforeEach, describe, expect, it } from "vitest";
import type { ResolvedBearer } from "../services/auth/resolve-bearer";
import { Freshness } from "../services/cache/freshness";
import { HotCaches } from "../services/cache/hot";
import type { McpSession } from "../services/mcp/catalog";
import type { FoundTool, ProxiedTool } from "../services/mcp/proxied";
import { type WarmRoute, WarmRoutes, warmKey } from "./warm-calls";

const NOW = new Date("2026-11-30T08:00:00Z");
const later = (ms: number) => new Date(NOW.getTime() + ms);

describe("warmKey", () => {
  const headers: Record<string, string> = {
    host: "loadout.example",
    origin: "https://app.example",
    "x-forwarded-proto": "https",
    "x-loadout-mode": "plan",
    "x-loadout-project": "/repo",
    "mcp-name": "gh_search",
  };
  const req = (changes: Record<string, string | undefined> = {}, url = "https://loadout.example/mcp") => ({
    url,
    header: (name: string) => (name in changes ? changes[name] : headers[name]),
  });

  it("is the same for the same bearer, URL and headers", () => {
    expect(warmKey("k1", req())).toBe(warmKey("k1", req()));
  });

  it.each(Object.keys(headers))("changes with the %s header", (name) => {
    expect(warmKey("k1", req({ [name]: "other" }))).not.toBe(warmKey("k1", req()));
    expect(warmKey("k1", req({ [name]: undefined }))).not.toBe(warmKey("k1", req()));
  });

  it("changes with the bearer and with the URL (endpoint, single server, query)", () => {
    expect(warmKey("k2", req())).not.toBe(warmKey("k1", req()));
    for (const url of [
      "https://loadout.example/mcp/e/ep_1",
      "https://loadout.example/mcp/s/me/gh",
      "https://loadout.example/mcp?mode=agent",
    ])
      expect(warmKey("k1", req({}, url))).not.toBe(warmKey("k1", req()));
  });
});

describe("WarmRoutes", () => {
  let freshness: Freshness;
  let hot: HotCaches;
  let routes: WarmRoutes;
  const resolved = { principal: { kind: "token", userId: "u1", tokenId: "t1" } } as unknown as ResolvedBearer;
  let current = true;

  /** The principal cached for bearer "b1", as principalFromBearer keeps it. */
  const cacheBearer = (value: ResolvedBearer = resolved) =>
    hot.bearers.set("b1", { stamp: freshness.userStamp("u1"), storedAt: NOW.getTime(), value });

  /** A route for u1's call to a tool of workspace w1, decided now (its stamps taken before "reading"). */
  const decide = (): WarmRoute | null => {
    const stamps = routes.stampsSince(freshness.sequence, "u1", ["w1"]);
    const principal = routes.cachedPrincipal("b1", NOW);
    if (!stamps || !principal) return null;
    return {
      resolved: principal,
      session: { principal: principal.principal } as McpSession,
      endpointId: null,
      single: false,
      mayAskRoots: false,
      found: {} as FoundTool,
      tool: {} as ProxiedTool,
      direct: {
        get current() {
          return current;
        },
        call: async () => ({ content: [] }),
      },
      ...stamps,
      toolWorkspaces: ["w1"],
      storedAt: NOW.getTime(),
    };
  };

  beforeEach(() => {
    freshness = new Freshness();
    freshness.listened();
    hot = new HotCaches(freshness);
    routes = new WarmRoutes(hot, 3);
    current = true;
    cacheBearer();
    const route = decide();
    if (!route) throw new Error("no route decided");
    routes.keep("key", route);
  });

  it("serves a route while everything it was decided under holds", () => {
    expect(routes.find("key", "b1", later(1000))).toBeDefined();
    // A change to another user or workspace is not this route's business.
    freshness.receive("user:u2");
    freshness.receive("ws:w2");
    expect(routes.find("key", "b1", later(2000))).toBeDefined();
  });

  it.each([
    ["its user changed (a token revoked, a membership)", () => freshness.receive("user:u1")],
    ["its tool's workspace changed (a tool switched off, a server narrowed)", () => freshness.receive("ws:w1")],
    ["notifications may have been lost", () => freshness.receive("reset:")],
    ["the change feed stopped", () => freshness.stopped()],
    ["the cache dropped the principal", () => hot.bearers.delete("b1")],
    ["the cache holds another principal for the bearer", () => cacheBearer({ ...resolved })],
    ["the pool dropped the connection", () => (current = false)],
  ])("drops a route once %s", (_, change) => {
    change();
    expect(routes.find("key", "b1", later(1000))).toBeUndefined();
    // Dropped, not just skipped: it is not served again when things look right once more.
    current = true;
    cacheBearer();
    expect(routes.find("key", "b1", later(1000))).toBeUndefined();
  });

  it("serves a route for at most a minute, whatever was heard", () => {
    cacheBearer();
    hot.bearers.set("b1", { stamp: freshness.userStamp("u1"), storedAt: later(60_000).getTime(), value: resolved });
    expect(routes.find("key", "b1", later(60_001))).toBeUndefined();
  });

  it("keeps no route decided while something was heard of", () => {
    const sequence = freshness.sequence;
    freshness.receive("ws:w9");
    expect(routes.stampsSince(sequence, "u1", ["w1"])).toBeNull();
    expect(routes.stampsSince(undefined, "u1", ["w1"])).toBeNull();
  });

  it("stays bounded: past its size it starts again", () => {
    const route = decide() as WarmRoute;
    routes.keep("a", route);
    routes.keep("b", route);
    expect(routes.size).toBe(3);
    routes.keep("c", route);
    expect(routes.size).toBe(1);
    expect(routes.find("c", "b1", later(1))).toBeDefined();
  });
});

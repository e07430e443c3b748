import type { DirectTool } from "@loadout/workers";
import { cachedBearer, type ResolvedBearer } from "../services/auth/resolve-bearer";
import type { HotCaches } from "../services/cache/hot";
import type { McpSession } from "../services/mcp/catalog";
import type { FoundTool, ProxiedTool } from "../services/mcp/proxied";

/**
 * What the endpoint decided for a `tools/call` to an upstream tool before reading its body: the
 * principal, the session (project, mode, workspaces), the tool looked up and as presented, and
 * the pool's prepared call. The next call with the same inputs (see warmKey) reuses it while the
 * generations it was decided under still hold, instead of deciding it all again: on this machine
 * deciding it cost a warm call about as much as the rest of Loadout's own work.
 */
export interface WarmRoute {
  /** The principal as the hot cache holds it: the route holds while the cache still serves it. */
  resolved: ResolvedBearer;
  session: McpSession;
  /** The saved endpoint the URL named, for the activity log and the client sighting. */
  endpointId: string | null;
  /** A single-server URL (`/mcp/s/{ws}/{slug}`): its tools keep their own names. */
  single: boolean;
  /** Whether nothing named a project, so that a client declaring roots may be asked for them. */
  mayAskRoots: boolean;
  found: FoundTool;
  tool: ProxiedTool;
  /** The pool's prepared call, where the upstream takes one (null sends calls through the pool). */
  direct: DirectTool | null;
  /** The user's generation, and the tool's workspaces' generation, when the route was decided. */
  userStamp: string;
  toolWorkspaces: readonly string[];
  toolStamp: string;
  storedAt: number;
}

/**
 * Everything before the body that the endpoint's decisions read: the bearer (by its cache key,
 * never the secret), the URL (path, endpoint, query), and the headers of host, origin, scheme,
 * project, mode and tool. Two requests with the same key are decided alike.
 */
export function warmKey(bearer: string, req: { url: string; header(name: string): string | undefined }): string {
  const { url } = req;
  return `${bearer}\n${url}\n${req.header("host") ?? ""}\n${req.header("origin") ?? ""}\n${req.header("x-forwarded-proto") ?? ""}\n${req.header("x-loadout-mode") ?? ""}\n${req.header("x-loadout-project") ?? ""}\n${req.header("mcp-name") ?? ""}`;
}

/**
 * The warm routes of an instance. A route is served only while the hot caches are live, its
 * principal is still the one the cache serves for the bearer, nothing was heard of its user or of
 * its tool's workspaces since it was decided, the pool still holds its connection, and for at most
 * `ttlMs` (the hot cache's own limit), whatever was heard.
 */
export class WarmRoutes {
  private readonly routes = new Map<string, WarmRoute>();

  constructor(
    private readonly hot: HotCaches,
    private readonly max = 10_000,
    private readonly ttlMs = 60_000,
  ) {}

  find(key: string, bearer: string, now: Date): WarmRoute | undefined {
    const route = this.routes.get(key);
    if (!route) return undefined;
    const live = this.hot.live;
    if (
      live &&
      now.getTime() - route.storedAt <= this.ttlMs &&
      cachedBearer(this.hot, bearer, now) === route.resolved &&
      live.userStamp(route.resolved.principal.userId) === route.userStamp &&
      live.workspaceStamp(route.toolWorkspaces) === route.toolStamp &&
      (route.direct?.current ?? true)
    )
      return route;
    this.routes.delete(key);
    return undefined;
  }

  /**
   * The stamps a route decided now is kept under, or null when none may be kept: the caches are
   * not live, or something was heard of since `sequence` (taken before the decisions were read),
   * which the decisions may not have seen.
   */
  stampsSince(
    sequence: number | undefined,
    userId: string,
    toolWorkspaces: readonly string[],
  ): { userStamp: string; toolStamp: string } | null {
    const live = this.hot.live;
    if (!live || sequence === undefined || live.sequence !== sequence) return null;
    return { userStamp: live.userStamp(userId), toolStamp: live.workspaceStamp(toolWorkspaces) };
  }

  /** The principal the cache serves for this bearer now (a route holds while it serves the same). */
  cachedPrincipal(bearer: string, now: Date): ResolvedBearer | undefined {
    return cachedBearer(this.hot, bearer, now);
  }

  keep(key: string, route: WarmRoute): void {
    // Any client can make keys (one per URL and header values): the map is kept bounded.
    if (this.routes.size >= this.max) this.routes.clear();
    this.routes.set(key, route);
  }

  get size(): number {
    return this.routes.size;
  }
}

import type { DirectTool } from "@loadout/workers";
import { cachedBearer, type ResolvedBearer } from "../auth/resolve-bearer";
import type { HotCaches } from "../cache/hot";

/**
 * A session the pipeline decided (principal, workspaces, project, mode, the URL's endpoint or
 * server), memoised on the key of the inputs it was decided from (see mcp/session-inputs.ts), and
 * the tools its calls named, each as looked up and presented, with the pool's prepared call. The
 * next request with the same inputs reuses them while the generations they were decided under
 * still hold, instead of deciding them all again: on this machine deciding them cost a warm call
 * about as much as the rest of Loadout's own work.
 */
export interface Remembered<S, T> {
  /** The principal as the hot cache holds it: the session holds while the cache still serves it. */
  resolved: ResolvedBearer;
  /** The user's generation when the session was decided. */
  userStamp: string;
  storedAt: number;
  session: S;
  tools: Map<string, RememberedTool<T>>;
}

export interface RememberedTool<T> {
  tool: T;
  /** The pool's prepared call, where the upstream takes one. */
  direct: DirectTool | null;
  /** The workspaces the tool was looked up in, and their generation then. */
  workspaces: readonly string[];
  stamp: string;
}

/** A user's and some workspaces' generations, taken where nothing was heard of since a request began. */
export interface Stamps {
  userStamp: string;
  toolStamp: string;
}

/**
 * The memoised sessions of an instance. One is served only while the hot caches are live, its
 * principal is still the one the cache serves for the bearer, nothing was heard of its user since
 * it was decided, and for at most `ttlMs` (the hot cache's own limit), whatever was heard; a tool
 * of it while nothing was heard of the tool's workspaces and the pool still holds its connection.
 */
export class SessionMemo<S, T> {
  private readonly sessions = new Map<string, Remembered<S, T>>();

  constructor(
    private readonly hot: HotCaches,
    private readonly max = 10_000,
    private readonly ttlMs = 60_000,
  ) {}

  /** The session decided for this key, while it holds. */
  find(key: string, bearer: string, now: Date): Remembered<S, T> | undefined {
    const remembered = this.sessions.get(key);
    if (!remembered) return undefined;
    const live = this.hot.live;
    if (
      live &&
      now.getTime() - remembered.storedAt <= this.ttlMs &&
      cachedBearer(this.hot, bearer, now) === remembered.resolved &&
      live.userStamp(remembered.resolved.principal.userId) === remembered.userStamp
    )
      return remembered;
    this.sessions.delete(key);
    return undefined;
  }

  /** A tool of a session found above, while it holds. */
  tool(remembered: Remembered<S, T>, name: string): RememberedTool<T> | undefined {
    const tool = remembered.tools.get(name);
    if (!tool) return undefined;
    if (this.hot.live?.workspaceStamp(tool.workspaces) === tool.stamp && (tool.direct?.current ?? true)) return tool;
    remembered.tools.delete(name);
    return undefined;
  }

  /**
   * The user's and workspaces' generations to keep something decided now under, or null when
   * nothing may be kept: the caches are not live, or something was heard of since `sequence`
   * (taken before the decisions were read), which the decisions may not have seen.
   */
  stampsSince(sequence: number | undefined, userId: string, workspaces: readonly string[]): Stamps | null {
    const live = this.hot.live;
    if (!live || sequence === undefined || live.sequence !== sequence) return null;
    return { userStamp: live.userStamp(userId), toolStamp: live.workspaceStamp(workspaces) };
  }

  /**
   * Keeps a session decided now for this bearer (the principal the cache serves for it now), or
   * returns the one kept already; undefined when nothing may be kept (see stampsSince).
   */
  keep(
    key: string,
    bearer: string,
    sequence: number | undefined,
    now: Date,
    session: S,
    principal: ResolvedBearer["principal"],
  ): Remembered<S, T> | undefined {
    const found = this.find(key, bearer, now);
    if (found) return found;
    const stamps = this.stampsSince(sequence, principal.userId, []);
    const resolved = cachedBearer(this.hot, bearer, now);
    if (!stamps || resolved?.principal !== principal) return undefined;
    // Any client can make keys (one per URL and header values): the map is kept bounded.
    if (this.sessions.size >= this.max) this.sessions.clear();
    const remembered: Remembered<S, T> = {
      resolved,
      userStamp: stamps.userStamp,
      storedAt: now.getTime(),
      session,
      tools: new Map(),
    };
    this.sessions.set(key, remembered);
    return remembered;
  }

  /** Keeps a tool looked up now for a session, unless something was heard of since `sequence`. */
  keepTool(
    remembered: Remembered<S, T>,
    name: string,
    sequence: number | undefined,
    workspaces: readonly string[],
    tool: T,
    direct: DirectTool | null,
  ): void {
    const stamps = this.stampsSince(sequence, remembered.resolved.principal.userId, workspaces);
    if (!stamps || stamps.userStamp !== remembered.userStamp) return;
    // Bounded like the sessions: a client can name any tool.
    if (remembered.tools.size >= 256) remembered.tools.clear();
    remembered.tools.set(name, { tool, direct, workspaces, stamp: stamps.toolStamp });
  }

  get size(): number {
    return this.sessions.size;
  }
}

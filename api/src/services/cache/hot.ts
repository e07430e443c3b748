import type { Freshness } from "./freshness";
import { StampedCache } from "./stamped-cache";

/**
 * Bytes kept by content address, which never change: a skill version's manifest and its files.
 * The least recently stored go first past the budget.
 */
export class ContentCache<V> {
  private readonly entries = new Map<string, { value: V; size: number }>();
  private bytes = 0;

  constructor(private readonly budget: number) {}

  get(key: string): V | undefined {
    return this.entries.get(key)?.value;
  }

  set(key: string, value: V, size: number): void {
    if (size > this.budget / 8) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.size;
      this.entries.delete(key);
    }
    this.entries.set(key, { value, size });
    this.bytes += size;
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.entries.delete(k);
      this.bytes -= e.size;
    }
  }
}

/**
 * What an instance keeps in memory so that a warm MCP call reads nothing from Postgres. The
 * caches of changing rows serve only while `freshness` is live (see Freshness); content-addressed
 * bytes are kept everywhere, since they cannot change.
 */
export class HotCaches {
  /** Rows that change, by key; see each user's comment for the key and the stamp. */
  readonly rows: StampedCache<unknown>;
  /** Principals by the hash of their bearer secret; checked against their user's generation at use. */
  readonly bearers: Map<string, { stamp: string; storedAt: number; value: unknown }>;
  readonly content: ContentCache<unknown>;

  constructor(
    readonly freshness: Freshness | null,
    /** The stores of another HotCaches, for a view of them (see `view`). */
    shared?: Pick<HotCaches, "rows" | "bearers" | "content">,
  ) {
    this.rows = shared?.rows ?? new StampedCache<unknown>(50_000);
    this.bearers = shared?.bearers ?? new Map();
    this.content = shared?.content ?? new ContentCache<unknown>(64 * 1024 * 1024);
  }

  /**
   * The same stores, stamped with another freshness: one request's, where the instance has no
   * change feed and each request polls its counters (see PolledFreshness).
   */
  view(freshness: Freshness): HotCaches {
    return new HotCaches(freshness, this);
  }

  /**
   * This request just committed a change outside a REST write (those are reported by the request
   * context): the very next request here must not be served what was cached before it, though
   * Postgres's notification of it may come later (see Freshness.wroteHere).
   */
  wroteHere(): void {
    this.freshness?.wroteHere();
  }

  /** The freshness to stamp with, or null when nothing changing may be cached now. */
  get live(): Freshness | null {
    return this.freshness?.live ? this.freshness : null;
  }

  /**
   * A value of these workspaces, read through when missing or stale: keyed by `key`, stamped
   * with the workspaces' generations taken before the read. A value in hand is returned as it is,
   * not in a promise: awaiting it costs a warm call less.
   */
  byWorkspaces<V>(key: string, workspaceIds: readonly string[], read: () => Promise<V>): V | Promise<V> {
    const live = this.live;
    return live ? this.through(key, live.workspaceStamp(workspaceIds), read) : read();
  }

  /**
   * The same for a value of one user's (a saved endpoint), stamped with the user's generation.
   * Stamps of different users can be equal: the key must name the user.
   */
  byUser<V>(key: string, userId: string, read: () => Promise<V>): V | Promise<V> {
    const live = this.live;
    return live ? this.through(key, live.userStamp(userId), read) : read();
  }

  private through<V>(key: string, stamp: string, read: () => Promise<V>): V | Promise<V> {
    const now = Date.now();
    const cached = this.rows.get(key, stamp, now);
    if (cached !== undefined) return cached as V;
    return read().then((value) => {
      this.rows.set(key, stamp, value, now);
      return value;
    });
  }
}

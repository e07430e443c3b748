import type { ServerEvent, ServerEventBus } from "@modelcontextprotocol/server";
import { type FeedChange, type Freshness, PolledFreshness } from "../services/cache/freshness";

/** Changes heard within this long of each other are told once: a save touches several rows. */
export const SETTLE_MS = 200;

/** What a change of a session's items may have changed: its tools, its prompts, its resources. */
export const CHANGE_EVENTS: readonly ServerEvent[] = [
  { kind: "tools_list_changed" },
  { kind: "prompts_list_changed" },
  { kind: "resources_list_changed" },
];

/** Whose changes a session's lists depend on: its user's and its workspaces'. */
export interface ChangeScope {
  userId: string;
  workspaceIds: readonly string[];
}

export const concerns = (scope: ChangeScope, change: FeedChange): boolean =>
  change === "all" ||
  ("userId" in change
    ? change.userId === scope.userId
    : "workspaceId" in change && scope.workspaceIds.includes(change.workspaceId));

/**
 * The event bus of one `subscriptions/listen` stream (2026-07-28), for the SDK's listen router
 * (createMcpHandler's `bus`): the instance's change feed, narrowed to the session's user and
 * workspaces, told as the three list_changed notifications (the router sends those the client
 * asked for and the server declared). The SDK's own bus is one per handler and would reach every
 * listener of every tenant, so each stream gets its own.
 *
 * The feed says that something of the user's or a workspace's changed (a skill saved, a server
 * added, an upstream's tools announced and stored, a pin approved), not which list: clients are
 * told to list again, which list_changed means. Nothing here reads the database.
 */
/**
 * Another source of a stream's events, started with its first listener and stopped with its last:
 * an upstream's resource updates, say (publish them as `resource_updated`; the SDK's router sends
 * each only to streams that asked for its URI).
 */
export type EventSource = (publish: (event: ServerEvent) => void) => () => void;

export function listChanges(
  feed: Freshness,
  scope: ChangeScope,
  settleMs = SETTLE_MS,
  also: EventSource | null = null,
): ServerEventBus {
  const listeners = new Set<(event: ServerEvent) => void>();
  let stopWatching: (() => void) | undefined;
  let stopAlso: (() => void) | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const publish = (event: ServerEvent) => {
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch {
        // A stream that broke while being written to is torn down by its router; the others go on.
      }
    }
  };
  const heard = (change: FeedChange) => {
    if (timer || !concerns(scope, change)) return;
    timer = setTimeout(() => {
      timer = undefined;
      for (const event of CHANGE_EVENTS) publish(event);
    }, settleMs);
  };
  return {
    publish,
    subscribe(listener) {
      listeners.add(listener);
      stopWatching ??= feed.watch(heard);
      if (also) stopAlso ??= also(publish);
      return () => {
        listeners.delete(listener);
        if (listeners.size) return;
        stopWatching?.();
        stopWatching = undefined;
        stopAlso?.();
        stopAlso = undefined;
        clearTimeout(timer);
        timer = undefined;
      };
    },
  };
}

/** How often a listen stream reads its counters where no change feed runs (Workers): one statement each time. */
export const LISTEN_POLL_MS = 3_000;

/**
 * A listen stream's own feed where no change feed runs (Workers): the counters of its user and
 * workspaces (services/cache/stamps.ts), read once before the stream starts and then every
 * LISTEN_POLL_MS while it is open, each moved counter told as the feed would tell it. The stream's
 * own, not the isolate's: a change another request polled would reach this stream from that
 * request's context, and workerd forbids I/O on behalf of another request.
 */
export async function polledChanges(
  poll: (into: PolledFreshness) => Promise<void>,
  everyMs = LISTEN_POLL_MS,
): Promise<{ feed: Freshness; source: EventSource }> {
  const own = new PolledFreshness();
  await poll(own);
  return {
    feed: own,
    source: () => {
      const timer = setInterval(() => {
        // A failed read (the database away for a moment) is tried again at the next tick.
        poll(own).catch(() => {});
      }, everyMs);
      return () => clearInterval(timer);
    },
  };
}

/** Several event sources as one, started and stopped together. */
export function bothSources(...sources: (EventSource | null)[]): EventSource | null {
  const present = sources.filter((s): s is EventSource => s !== null);
  if (present.length <= 1) return present[0] ?? null;
  return (publish) => {
    const stops = present.map((source) => source(publish));
    return () => {
      for (const stop of stops) stop();
    };
  };
}

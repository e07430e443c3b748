import type { Database } from "@loadout/db";
import type { ServerEvent } from "@modelcontextprotocol/server";
import { isViewUri } from "../domain/apps/ui";
import { AppError } from "../errors";
import type { FeedChange, Freshness } from "../services/cache/freshness";
import type { McpSession } from "../services/mcp/catalog";
import { subscribedUris, subscribeResource, unsubscribeResource } from "../services/mcp/legacy-subscriptions";
import { findSingleServer, type ResourceWatches, resourceWatches, type SingleServer } from "../services/mcp/proxied";
import { sessionItems, sessionResourceWatches } from "../services/mcp/session-items";
import type { ServerDeps } from "../services/servers/upstreams";
import { jsonReply, type McpReply } from "./exchange";
import type { EventSource } from "./list-changes";

/** What a 2025-era session may watch, on a single server's URL or, namespaced, at `/mcp`. */
export interface SessionWatches {
  db: Database;
  session: McpSession;
  deps: ServerDeps;
  single: SingleServer | null;
  /** The client negotiated MCP Apps: its views are items it may read. */
  apps: boolean;
  now: Date;
  onFailed: (error: unknown) => void;
}

/** The watches of `uris` the session may hold (see resourceWatches and sessionResourceWatches). */
export async function watchesOf(on: SessionWatches, uris: readonly string[]): Promise<ResourceWatches> {
  const { db, session, deps, now, onFailed } = on;
  if (on.single) {
    const server = await findSingleServer(db, deps, on.single);
    if (!server) return { uris: [], start: () => () => {} };
    return resourceWatches(db, session, deps, server, uris, now, onFailed);
  }
  const items = (await sessionItems(db, deps, session)).filter((item) => on.apps || !isViewUri(item.row.key));
  return sessionResourceWatches(db, session, deps, items, uris, now, onFailed);
}

/**
 * A 2025-era client's `resources/subscribe` or `resources/unsubscribe`, served without the SDK
 * (whose stateless serving keeps nothing): a subscription the session may hold (a resource it
 * may read, on an upstream that offers subscriptions) is kept for its session (see
 * services/mcp/legacy-subscriptions.ts), and its GET stream carries the updates. Any other is
 * refused with -32602, in the same words whether the resource is withheld or does not exist.
 */
export async function legacySubscription(
  on: SessionWatches,
  key: string,
  rpc: { id: string | number | null; method: "resources/subscribe" | "resources/unsubscribe"; uri: unknown },
): Promise<McpReply> {
  const { id, uri } = rpc;
  const error = (message: string) =>
    jsonReply(200, JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32602, message } }));
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 2048)
    return error("params.uri must be the URI of a resource (at most 2048 characters).");
  if (rpc.method === "resources/unsubscribe") await unsubscribeResource(on.db, key, uri);
  else {
    const watches = await watchesOf(on, [uri]);
    if (!watches.uris.includes(uri))
      return error(
        `Resource ${uri} cannot be subscribed to here: it is not a resource this session may read, or its server offers no subscriptions.`,
      );
    try {
      await subscribeResource(on.db, key, on.session.principal.userId, uri, on.now);
    } catch (failed) {
      if (failed instanceof AppError && failed.code === "invalid_request") return error(failed.message);
      throw failed;
    }
  }
  return jsonReply(200, JSON.stringify({ jsonrpc: "2.0", id, result: {} }));
}

/**
 * The resource updates of a 2025-era session's GET stream: its subscriptions, read when the stream
 * opens and again whenever the feed says they changed (or that anything may have), each watched
 * upstream for as long as the stream is open. The watches of a new reading start before the old
 * ones stop, so a URI held by both stays subscribed upstream throughout.
 */
export function subscriptionUpdates(
  on: SessionWatches,
  key: string,
  feed: Freshness,
  updated: (update: Record<string, unknown>) => ServerEvent,
): EventSource {
  return (publish) => {
    let stopWatches = () => {};
    let reading = 0;
    let stopped = false;
    const read = async () => {
      const mine = ++reading;
      const uris = await subscribedUris(on.db, key, new Date());
      const watches = uris.length ? await watchesOf(on, uris) : null;
      if (stopped || mine !== reading) return;
      const stopOld = stopWatches;
      stopWatches = watches?.uris.length ? watches.start((update) => publish(updated(update))) : () => {};
      stopOld();
    };
    const readAgain = () => {
      read().catch(on.onFailed);
    };
    readAgain();
    const ours = (change: FeedChange) =>
      change === "all" || (typeof change === "object" && "sessionKey" in change && change.sessionKey === key);
    const stopHearing = feed.watch((change) => {
      if (ours(change)) readAgain();
    });
    return () => {
      stopped = true;
      stopHearing();
      stopWatches();
    };
  };
}

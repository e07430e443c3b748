import type { Database } from "@loadout/db";
import { hashSecret } from "../../auth/secrets";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { Freshness } from "../cache/freshness";
import type { HotCaches } from "../cache/hot";
import { looksLikeAccessToken, principalAndWorkspacesFromAccessToken } from "../oauth/verify";
import { principalAndWorkspacesFromApiToken, type ResolvedPrincipal } from "./resolve-principal";

export interface ResolvedBearer extends ResolvedPrincipal {
  workspaces: WorkspaceView[];
  /** OAuth access tokens only: the MCP URL they are bound to (API tokens reach every endpoint). */
  audience: string | null;
  pins: { project: string | null; mode: "agent" | "plan" | "goal" | null } | null;
}

/**
 * How long a principal is served from memory at most, whatever was heard. No longer than the
 * resolution of last-used times (a minute, see resolve-principal.ts): the read that follows
 * records last use, so a token in steady use still shows it to the minute.
 */
const CACHED_FOR_MS = 60_000;
/** Principals kept at most per instance. */
const MAX_CACHED = 20_000;

/**
 * The one verification path of the MCP endpoint: an API token (`lo_…`) or an OAuth access token
 * (`loa_…`), told apart by prefix, each resolved with its workspaces in one prepared query. With
 * hot caches live, a token seen lately is served from memory, as long as no change to its user's
 * tokens, grants or memberships has been heard of since and it has not expired. A principal in
 * hand is returned as it is, not in a promise.
 */
export function principalFromBearer(
  db: Database,
  secret: string,
  now: Date,
  hot?: HotCaches | null,
  /** The secret's `bearerKey`, when the caller has it already. */
  key = hot?.live ? bearerKey(secret) : "",
): ResolvedBearer | Promise<ResolvedBearer> {
  const live = hot?.live;
  if (!hot || !live) return fromDatabase(db, secret, now);
  return cachedBearer(hot, key, now) ?? readAndKeep(db, secret, now, hot, live, key);
}

/** What the cache of principals keys a bearer secret by: its hash, never the secret. */
export const bearerKey = hashSecret;

/**
 * The principal the hot cache holds for this key, if it may still be served: not expired, stored
 * within the last minute, and nothing heard of its user since. A stale one is dropped.
 */
export function cachedBearer(hot: HotCaches, key: string, now: Date): ResolvedBearer | undefined {
  const live = hot.live;
  const cached = hot.bearers.get(key);
  if (!live || !cached) return undefined;
  const at = now.getTime();
  const resolved = cached.value as ResolvedBearer;
  const expired = resolved.expiresAt ? resolved.expiresAt.getTime() <= at : false;
  if (!expired && at - cached.storedAt <= CACHED_FOR_MS && cached.stamp === live.userStamp(resolved.principal.userId))
    return resolved;
  hot.bearers.delete(key);
  return undefined;
}

/**
 * Whose principal the cache holds for this secret (by its `bearerKey`), before it is checked: the
 * user and workspaces whose counters a polling instance reads first (see PolledFreshness).
 * Undefined when none is held.
 */
export function knownBearer(hot: HotCaches, key: string): { userId: string; workspaceIds: string[] } | undefined {
  const cached = hot.bearers.get(key)?.value as ResolvedBearer | undefined;
  return cached && { userId: cached.principal.userId, workspaceIds: cached.workspaces.map((w) => w.id) };
}

async function readAndKeep(
  db: Database,
  secret: string,
  now: Date,
  hot: HotCaches,
  live: Freshness,
  key: string,
): Promise<ResolvedBearer> {
  const at = now.getTime();
  const sequence = live.sequence;
  const resolved = await fromDatabase(db, secret, now);
  // Kept only if nothing changed while it was read: a revocation heard meanwhile may be this one.
  if (live.live && live.sequence === sequence) {
    const { after: _, ...value } = resolved;
    if (hot.bearers.size >= MAX_CACHED) hot.bearers.clear();
    hot.bearers.set(key, { stamp: live.userStamp(resolved.principal.userId), storedAt: at, value });
  }
  return resolved;
}

async function fromDatabase(db: Database, secret: string, now: Date): Promise<ResolvedBearer> {
  if (looksLikeAccessToken(secret)) return principalAndWorkspacesFromAccessToken(db, secret, now);
  return { ...(await principalAndWorkspacesFromApiToken(db, secret, now)), audience: null, pins: null };
}

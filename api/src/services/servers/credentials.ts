import { type Database, upstreamOAuthConnections } from "@loadout/db";
import {
  cappedFetch,
  readChallenge,
  refreshAuthorization,
  type UpstreamTarget,
  UpstreamUnauthorized,
} from "@loadout/workers";
import { and, eq } from "drizzle-orm";
import { SecretBoxError } from "../../auth/secret-box";
import { expiryOf, needsRefresh, ownerOf, scopeUnion } from "../../domain/upstream-oauth/tokens";
import { recordEvent } from "../audit";
import { connectionClient } from "./oauth/registration";
import { openedTarget } from "./targets";
import type { ServerDeps, ServerRow } from "./upstreams";

export type ConnectionRow = typeof upstreamOAuthConnections.$inferSelect;

/** Binds a sealed token to its server, owner and kind, so a ciphertext moved elsewhere does not open. */
export const tokenAd = (serverId: string, owner: string, kind: "access" | "refresh") =>
  `${serverId}:oauth:${owner}:${kind}`;

/** Why a call to an OAuth server cannot be sent for this user now, as the agent reads it. */
export interface CredentialRefusal {
  refusal: string;
  /**
   * The console page where the caller can put it right themselves (Connect): absolute when a
   * public URL is configured, else a path. Absent when only someone else can (a team's sign-in).
   */
  connectUrl?: string;
}

export const isRefusal = (value: unknown): value is CredentialRefusal =>
  typeof value === "object" && value !== null && "refusal" in value;

/** Where the user connects: the server's page in the console (absolute when the public URL is known). */
export function connectLink(deps: ServerDeps, server: ServerRow, workspaceParam: string): string {
  const path = `/servers/edit/?slug=${encodeURIComponent(server.slug)}&ws=${encodeURIComponent(workspaceParam)}`;
  return `${deps.oauth?.publicUrl ? new URL(deps.oauth.publicUrl).origin : ""}${path}`;
}

/** The connection a call of this owner uses, read while the hot cache holds it (its trigger notifies). */
export function findConnection(
  db: Database,
  deps: ServerDeps,
  server: Pick<ServerRow, "id" | "workspaceId">,
  owner: string,
): ConnectionRow | null | Promise<ConnectionRow | null> {
  const key = `upstream_connection\u0000${server.id}\u0000${owner}`;
  return deps.hot.byWorkspaces(key, [server.workspaceId], async () => {
    const [row] = await db
      .select()
      .from(upstreamOAuthConnections)
      .where(
        and(
          eq(upstreamOAuthConnections.serverId, server.id),
          eq(upstreamOAuthConnections.workspaceId, server.workspaceId),
          eq(upstreamOAuthConnections.owner, owner),
        ),
      )
      .limit(1);
    return row ?? null;
  });
}

/** Access tokens opened once per row object (a row from the hot cache is the same object call after call). */
const openedTokens = new WeakMap<ConnectionRow, Promise<string>>();

function accessToken(deps: ServerDeps, row: ConnectionRow): Promise<string> {
  let token = openedTokens.get(row);
  if (!token) {
    token = deps.box.open(row.accessToken, tokenAd(row.serverId, row.owner, "access"));
    openedTokens.set(row, token);
    token.catch(() => openedTokens.delete(row));
  }
  return token;
}

/** What a call on this row sends: the server's own target, with the bearer and its identity. */
async function withToken(deps: ServerDeps, server: ServerRow, row: ConnectionRow): Promise<UpstreamTarget> {
  const base = await openedTarget(server, deps.box);
  return {
    ...base,
    headers: { ...base.headers, authorization: `Bearer ${await accessToken(deps, row)}` },
    credential: { owner: row.owner, version: row.version },
  };
}

/** Who acts when a call refreshes or fails a connection: the calling user, for the audit. */
export interface CredentialActor {
  userId: string;
  /** The console's workspace parameter for the server's workspace (`me`, or the team's slug). */
  workspaceParam: string;
  now: Date;
  requestId?: string;
}

/** A connection's event (refreshed, failed), by the user whose call caused it; never a token in it. */
function auditConnection(
  db: Database,
  actor: CredentialActor,
  server: ServerRow,
  row: ConnectionRow,
  action: string,
  data: Record<string, unknown>,
) {
  return recordEvent(
    db,
    { principal: { userId: actor.userId }, requestId: actor.requestId ?? "upstream-oauth", now: actor.now },
    {
      workspaceId: server.workspaceId,
      action,
      targetType: "server",
      targetId: server.id,
      data: { slug: server.slug, shared: row.owner === "shared", ...data },
    },
  );
}

const refreshing = new Map<string, Promise<ConnectionRow | null>>();

/**
 * Refreshes a connection's tokens (rotation kept: a new refresh token replaces the old), once per
 * connection and version in this process, under a row lock so that two instances never spend the
 * same refresh token. A connection refreshed meanwhile is taken as it is now. A refusal marks this
 * owner's connection "needs sign-in" and touches no other. Null when it was disconnected.
 */
export function refreshConnection(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  row: ConnectionRow,
  actor: CredentialActor,
  reason: "expiry" | "refused",
): Promise<ConnectionRow | null> {
  const key = `${row.id}@${row.version}`;
  let pending = refreshing.get(key);
  if (!pending) {
    pending = refreshNow(db, deps, server, row, actor, reason).finally(() => {
      refreshing.delete(key);
      // The next call here takes the refreshed row (or the refusal), not the one cached before it.
      deps.hot.wroteHere();
    });
    refreshing.set(key, pending);
  }
  return pending;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

async function refreshNow(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  row: ConnectionRow,
  actor: CredentialActor,
  reason: "expiry" | "refused",
): Promise<ConnectionRow | null> {
  const oauth = deps.oauth;
  return db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(upstreamOAuthConnections)
      .where(eq(upstreamOAuthConnections.id, row.id))
      .for("update");
    if (!current) return null;
    if (current.version !== row.version || current.status !== "connected") return current;
    const audit = (action: string, data: Record<string, unknown>) =>
      auditConnection(tx, actor, server, current, action, data);
    const fail = async (why: string) => {
      const [failed] = await tx
        .update(upstreamOAuthConnections)
        .set({ status: "needs_sign_in", lastError: why, updatedAt: actor.now })
        .where(eq(upstreamOAuthConnections.id, current.id))
        .returning();
      await audit("server.connection_failed", { reason, error: why });
      deps.pool?.drop(server.id, current.owner, server.generation);
      return failed ?? null;
    };
    if (!current.refreshToken)
      return fail("the access token is no longer accepted and the server gave no refresh token");
    if (!oauth || !server.oauthMetadata) return fail("the authorization server's metadata is not known; connect again");
    let tokens: Awaited<ReturnType<typeof refreshAuthorization>>;
    try {
      const refreshToken = await deps.box.open(current.refreshToken, tokenAd(server.id, current.owner, "refresh"));
      tokens = await refreshAuthorization(current.issuer, {
        metadata: server.oauthMetadata as Parameters<typeof refreshAuthorization>[1]["metadata"] & object,
        clientInformation: await connectionClient(tx, deps.box, server, current),
        refreshToken,
        resource: current.resource,
        fetchFn: cappedFetch(oauth.fetch),
      });
    } catch (error) {
      if (error instanceof SecretBoxError) return fail(error.message);
      return fail(`the authorization server refused the refresh (${messageOf(error)})`);
    }
    const [updated] = await tx
      .update(upstreamOAuthConnections)
      .set({
        accessToken: await deps.box.seal(tokens.access_token, tokenAd(server.id, current.owner, "access")),
        ...(tokens.refresh_token
          ? { refreshToken: await deps.box.seal(tokens.refresh_token, tokenAd(server.id, current.owner, "refresh")) }
          : {}),
        expiresAt: expiryOf(tokens.expires_in, actor.now),
        scope: tokens.scope ?? current.scope,
        status: "connected",
        lastError: null,
        version: current.version + 1,
        updatedAt: actor.now,
      })
      .where(eq(upstreamOAuthConnections.id, current.id))
      .returning();
    await audit("server.connection_refreshed", { reason, rotated: Boolean(tokens.refresh_token) });
    return updated ?? null;
  });
}

/** What a refusal tells the agent, by the state of the caller's connection. */
function refusalFor(
  deps: ServerDeps,
  server: ServerRow,
  actor: CredentialActor,
  row: ConnectionRow | null,
): CredentialRefusal {
  const link = connectLink(deps, server, actor.workspaceParam);
  if (server.oauth === "shared")
    return {
      refusal: row
        ? `The team's sign-in to ${server.slug} is no longer valid (${row.lastError ?? "refused"}): ask an admin to press "Connect for the team" again on its page in the Loadout console (${link}).`
        : `${server.slug} uses the team's sign-in, which no admin has connected yet: ask one to press "Connect for the team" on its page in the Loadout console (${link}).`,
    };
  return {
    refusal: row
      ? `The sign-in to ${server.slug} is no longer valid (${row.lastError ?? "refused"}): connect again on its page in the Loadout console (${link}).`
      : `${server.slug} needs you to sign in first: press "Connect" on its page in the Loadout console (${link}), then call again.`,
    connectUrl: link,
  };
}

/** The caller's usable connection (refreshed first when about to expire), or why there is none. */
async function usableConnection(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  actor: CredentialActor,
): Promise<ConnectionRow | CredentialRefusal> {
  const owner = ownerOf(server.oauth ?? "per-user", actor.userId);
  let row = await findConnection(db, deps, server, owner);
  if (row?.status === "connected" && needsRefresh(row.expiresAt, actor.now))
    row = await refreshConnection(db, deps, server, row, actor, "expiry");
  return row?.status === "connected" ? row : refusalFor(deps, server, actor, row);
}

/**
 * Runs `use` with the credentials this user's call to the server carries: the server's own target
 * where it takes no sign-in; else the user's connection (or the team's, for shared credentials),
 * refreshed before expiry. A 401 refreshes once and runs `use` again; a second 401 or a failed
 * refresh marks that connection "needs sign-in". A 403 insufficient_scope keeps the challenged
 * scope for the next Connect (a step-up). Both end in a refusal for the agent, never a token.
 */
export async function withCredentials<T>(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  actor: CredentialActor,
  use: (target: UpstreamTarget) => Promise<T>,
): Promise<T | CredentialRefusal> {
  if (!server.oauth) return use(await openedTarget(server, deps.box));
  let row = await usableConnection(db, deps, server, actor);
  if (isRefusal(row)) return row;
  for (let attempt = 0; ; attempt++) {
    let target: UpstreamTarget;
    try {
      target = await withToken(deps, server, row);
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      return refusalFor(deps, server, actor, { ...row, lastError: error.message });
    }
    try {
      return await use(target);
    } catch (error) {
      if (!(error instanceof UpstreamUnauthorized)) throw error;
      if (error.status === 403) return stepUp(db, deps, server, row, actor, error.challenge);
      const refreshed: ConnectionRow | null =
        attempt === 0 ? await refreshConnection(db, deps, server, row, actor, "refused") : null;
      if (refreshed?.status === "connected" && refreshed.version !== row.version) {
        row = refreshed;
        continue;
      }
      const failed =
        refreshed ?? (await markNeedsSignIn(db, deps, server, row, actor, "the refreshed token was refused too"));
      return refusalFor(deps, server, actor, failed);
    }
  }
}

async function markNeedsSignIn(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  row: ConnectionRow,
  actor: CredentialActor,
  why: string,
): Promise<ConnectionRow> {
  const [failed] = await db.transaction(async (tx) => {
    const updated = await tx
      .update(upstreamOAuthConnections)
      .set({ status: "needs_sign_in", lastError: why, updatedAt: actor.now })
      .where(eq(upstreamOAuthConnections.id, row.id))
      .returning();
    await auditConnection(tx, actor, server, row, "server.connection_failed", { reason: "refused", error: why });
    return updated;
  });
  deps.hot.wroteHere();
  deps.pool?.drop(server.id, row.owner, server.generation);
  return failed ?? { ...row, status: "needs_sign_in", lastError: why };
}

/** A 403 insufficient_scope: the challenged scope is kept, and the user is asked to connect again for it. */
async function stepUp(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  row: ConnectionRow,
  actor: CredentialActor,
  challenge: string | null,
): Promise<CredentialRefusal> {
  const wanted = readChallenge(challenge).scope ?? null;
  const scope = scopeUnion(row.scope, wanted);
  await db
    .update(upstreamOAuthConnections)
    .set({ stepUpScope: scope, updatedAt: actor.now })
    .where(eq(upstreamOAuthConnections.id, row.id));
  deps.hot.wroteHere();
  const link = connectLink(deps, server, actor.workspaceParam);
  return {
    refusal: `${server.slug} needs more access for this${wanted ? ` (scope "${wanted}")` : ""}: press "Connect" again on its page in the Loadout console (${link}) to grant it, then call again.`,
    ...(server.oauth === "shared" ? {} : { connectUrl: link }),
  };
}

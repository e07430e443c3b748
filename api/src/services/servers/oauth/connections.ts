import { mcpServers, upstreamOAuthConnections, users } from "@loadout/db";
import { type AuthorizationServerMetadata, revokeUpstreamToken } from "@loadout/workers";
import { and, asc, eq } from "drizzle-orm";
import { ownerOf } from "../../../domain/upstream-oauth/tokens";
import { AppError, notFound } from "../../../errors";
import type { ConnectionView, ServerConnectionsView } from "../../../schemas/server-connections";
import { recordEvent } from "../../audit";
import type { ActionContext } from "../../context";
import { resolveWorkspace } from "../../workspaces/access";
import { lockWorkspace } from "../../workspaces/lock";
import { type ConnectionRow, tokenAd } from "../credentials";
import { findServer } from "../records";
import type { ServerDeps } from "../upstreams";
import { mayShare } from "./connect";
import { connectionClient } from "./registration";

function view(row: ConnectionRow | undefined, who: ConnectionView["owner"], email: string | null): ConnectionView {
  return {
    owner: who,
    email,
    state: !row ? "not_connected" : row.status === "connected" ? "connected" : "needs_sign_in",
    scopes: row?.scope ? row.scope.split(/\s+/).filter(Boolean) : [],
    stepUpScopes: row?.stepUpScope ? row.stepUpScope.split(/\s+/).filter(Boolean) : [],
    expiresAt: row?.expiresAt?.toISOString() ?? null,
    connectedAt: row?.updatedAt.toISOString() ?? null,
    lastError: row?.status === "needs_sign_in" ? row.lastError : null,
  };
}

/**
 * A server's sign-in as the caller may see it: how it authenticates, the caller's own connection
 * (or the team's), and for the team's owners and admins every member's state. A member sees only
 * their own: another member's connection is not even named.
 */
export async function getConnections({
  ctx,
  ws,
  slug,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
}): Promise<ServerConnectionsView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  const admin = workspace.kind === "personal" || mayShare(workspace.role);
  const rows = await ctx.db
    .select({ connection: upstreamOAuthConnections, email: users.email })
    .from(upstreamOAuthConnections)
    .leftJoin(users, eq(users.id, upstreamOAuthConnections.userId))
    .where(
      and(eq(upstreamOAuthConnections.serverId, server.id), eq(upstreamOAuthConnections.workspaceId, workspace.id)),
    )
    .orderBy(asc(upstreamOAuthConnections.createdAt));
  const shared = rows.find((r) => r.connection.owner === "shared");
  const mine = rows.find((r) => r.connection.owner === ctx.principal.userId);
  return {
    auth: server.oauth ? "oauth" : Object.keys(server.headers).length ? "headers" : "none",
    credentials: server.oauth,
    issuer: server.oauthIssuer,
    scope: server.oauthScope,
    mine: view(mine?.connection, "me", mine?.email ?? null),
    shared: server.oauth === "shared" || shared ? view(shared?.connection, "shared", null) : null,
    mayShare: admin,
    members:
      admin && workspace.kind === "team"
        ? rows.filter((r) => r.connection.userId !== null).map((r) => view(r.connection, "member", r.email))
        : [],
  };
}

/**
 * Disconnect: forgets the caller's own tokens for the server (or, with `shared`, the team's, for
 * owners and admins) and revokes them at the issuer where it offers revocation. A caller with no
 * such connection gets a 404, whoever else has one.
 */
export async function disconnectServer({
  ctx,
  ws,
  slug,
  shared,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  shared: boolean;
  deps: ServerDeps;
}): Promise<void> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  if (shared && workspace.kind === "team" && !mayShare(workspace.role))
    throw new AppError("forbidden", `Only the team's owners and admins can disconnect the team's sign-in to ${slug}.`);
  const owner = ownerOf(shared ? "shared" : "per-user", ctx.principal.userId);
  const { server, removed } = await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const server = await findServer(tx, workspace.id, slug);
    const [removed] = await tx
      .delete(upstreamOAuthConnections)
      .where(
        and(
          eq(upstreamOAuthConnections.serverId, server.id),
          eq(upstreamOAuthConnections.workspaceId, workspace.id),
          eq(upstreamOAuthConnections.owner, owner),
        ),
      )
      .returning();
    if (!removed) throw notFound(shared ? `The team's connection to "${slug}"` : `Your connection to "${slug}"`);
    // Without the team's sign-in, each member connects their own account again.
    if (shared) await tx.update(mcpServers).set({ oauth: "per-user" }).where(eq(mcpServers.id, server.id));
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.disconnected",
      targetType: "server",
      targetId: server.id,
      data: { slug, shared },
    });
    return { server, removed };
  });
  deps.pool?.drop(server.id, owner, server.generation);
  await revoke(ctx, deps, server, removed).catch((error: unknown) =>
    ctx.logger?.log("warn", "upstream token revocation failed", { server: server.id, error: String(error) }),
  );
}

/** Best effort: the refresh token (which ends the grant) where there is one, else the access token. */
async function revoke(
  ctx: ActionContext,
  deps: ServerDeps,
  server: Awaited<ReturnType<typeof findServer>>,
  row: ConnectionRow,
) {
  const oauth = deps.oauth;
  if (!oauth || !server.oauthMetadata) return;
  const client = await connectionClient(ctx.db, deps.box, server, row);
  const metadata = server.oauthMetadata as unknown as AuthorizationServerMetadata;
  const [sealed, hint] = row.refreshToken
    ? ([row.refreshToken, "refresh_token"] as const)
    : ([row.accessToken, "access_token"] as const);
  const token = await deps.box.open(
    sealed,
    tokenAd(server.id, row.owner, hint === "refresh_token" ? "refresh" : "access"),
  );
  await revokeUpstreamToken(metadata, client, token, hint, oauth.fetch);
}

import { mcpServers, newId, upstreamOAuthConnections, upstreamOAuthStates, workspaces } from "@loadout/db";
import {
  cappedFetch,
  exchangeAuthorization,
  IssuerMismatchError,
  probeChallenge,
  startAuthorization,
  UpstreamAuthProblem,
  validateAuthorizationResponseIssuer,
} from "@loadout/workers";
import { and, eq, lt } from "drizzle-orm";
import { hashSecret, randomBase62 } from "../../../auth/secrets";
import { expiryOf, ownerOf, STATE_TTL_MS, scopeUnion } from "../../../domain/upstream-oauth/tokens";
import { AppError } from "../../../errors";
import type { ConnectServerInput } from "../../../schemas/server-connections";
import { recordEvent } from "../../audit";
import type { ActionContext, AnonymousContext } from "../../context";
import { resolveWorkspace } from "../../workspaces/access";
import { connectLink, tokenAd } from "../credentials";
import { findServer } from "../records";
import { openedTarget } from "../targets";
import type { ServerDeps } from "../upstreams";
import { discoverServerAuth, OAuthUnusable } from "./discovery";
import { clientIdentity, connectionClient, forgetRegistration, registrationSecretAd } from "./registration";

/** Binds a sealed PKCE verifier to its sign-in. */
const verifierAd = (stateId: string) => `${stateId}:pkce-verifier`;

/** Only owners and admins set (or forget) a team's shared connection; anyone their own. */
export function mayShare(role: string): boolean {
  return role === "owner" || role === "admin";
}

/** The console's workspace parameter for a workspace: `me` for the personal one, else its slug. */
export const workspaceParam = (workspace: { kind: string; slug: string }) =>
  workspace.kind === "personal" ? "me" : workspace.slug;

/**
 * Connect: discovery (from the server's challenge to a request without credentials), Loadout's
 * client identity at the issuer, then the authorization request, with `state` (bound to the
 * user and the server, single use, ten minutes), PKCE S256, `resource` and the scope the server
 * asked for (widened by a step-up the connection was challenged for). The browser goes to the
 * answer's `authorizationUrl`; `finishConnect` takes it from the callback.
 */
export async function startConnect({
  ctx,
  ws,
  slug,
  input,
  origin,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  input: ConnectServerInput;
  origin: string;
  deps: ServerDeps;
}): Promise<{ authorizationUrl: string }> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  let server = await findServer(ctx.db, workspace.id, slug);
  const shared = input.shared === true;
  if (shared && workspace.kind === "team" && !mayShare(workspace.role))
    throw new AppError("forbidden", `Only the team's owners and admins can connect ${slug} for the whole team.`);
  if (!shared && server.oauth === "shared")
    throw new AppError(
      "conflict",
      `${slug} uses the team's connection, which an admin sets with "Connect for the team"; disconnect that first to let each member connect their own account.`,
    );
  const oauth = deps.oauth;
  if (!oauth) throw new AppError("unavailable", "This deployment cannot sign in to remote servers.");
  if (input.clientId !== undefined) {
    // A client the user registered at the issuer: the first choice of client identity from now on.
    const pasted = {
      oauthClientId: input.clientId,
      oauthClientSecret: input.clientSecret
        ? await deps.box.seal(input.clientSecret, registrationSecretAd(server.id))
        : null,
    };
    await ctx.db
      .update(mcpServers)
      .set(pasted)
      .where(and(eq(mcpServers.id, server.id), eq(mcpServers.workspaceId, workspace.id)));
    server = { ...server, ...pasted };
  }
  const url = (await openedTarget(server, deps.box)).url;
  let found: Awaited<ReturnType<typeof discoverServerAuth>>;
  try {
    const probe = await probeChallenge(url, oauth.fetch);
    if (probe.status !== 401 && probe.status !== 403 && !server.oauth)
      throw new OAuthUnusable(
        `${slug} answered without asking for a sign-in (HTTP ${probe.status}); it needs no Connect.`,
      );
    found = await discoverServerAuth(deps, url, probe.challenge);
  } catch (error) {
    if (error instanceof OAuthUnusable || error instanceof UpstreamAuthProblem)
      throw new AppError("invalid_request", error.message);
    throw error;
  }
  const identity = await clientIdentity(ctx.db, deps.box, {
    server,
    issuer: found.issuer,
    metadata: found.metadata,
    origin,
    allowLoopback: deps.allowLoopback,
    fetch: oauth.fetch,
    now: ctx.now,
  }).catch((error: unknown) => {
    if (error instanceof OAuthUnusable) throw new AppError("invalid_request", error.message);
    throw error;
  });
  const owner = ownerOf(shared ? "shared" : "per-user", ctx.principal.userId);
  const [existing] = await ctx.db
    .select({ scope: upstreamOAuthConnections.scope, stepUpScope: upstreamOAuthConnections.stepUpScope })
    .from(upstreamOAuthConnections)
    .where(and(eq(upstreamOAuthConnections.serverId, server.id), eq(upstreamOAuthConnections.owner, owner)))
    .limit(1);
  const scope = scopeUnion(found.scope, existing?.stepUpScope);
  const state = randomBase62(43);
  const stateId = newId("upstreamState", ctx.now.getTime());
  const redirectUri = `${origin}/oauth/upstream/callback`;
  const { authorizationUrl, codeVerifier } = await startAuthorization(found.issuer, {
    metadata: found.metadata,
    clientInformation: identity.client,
    redirectUrl: redirectUri,
    state,
    resource: found.resource,
    ...(scope ? { scope } : {}),
  });
  await ctx.db.transaction(async (tx) => {
    // Sign-ins left unfinished expire; they are swept as new ones begin.
    await tx.delete(upstreamOAuthStates).where(lt(upstreamOAuthStates.expiresAt, ctx.now));
    await tx.insert(upstreamOAuthStates).values({
      id: stateId,
      stateHash: hashSecret(state),
      workspaceId: workspace.id,
      serverId: server.id,
      userId: ctx.principal.userId,
      shared,
      generation: server.generation,
      issuer: found.issuer,
      registrationId: identity.registrationId,
      clientId: identity.client.client_id,
      verifier: await deps.box.seal(codeVerifier, verifierAd(stateId)),
      redirectUri,
      resource: found.resource,
      scope,
      expiresAt: new Date(ctx.now.getTime() + STATE_TTL_MS),
      createdAt: ctx.now,
    });
    // What the server is now known to take: OAuth at this issuer, for each member or the team.
    await tx
      .update(mcpServers)
      .set({
        oauth: shared ? "shared" : (server.oauth ?? "per-user"),
        oauthIssuer: found.issuer,
        oauthScope: found.scope,
        oauthMetadata: found.metadata as Record<string, unknown>,
      })
      .where(and(eq(mcpServers.id, server.id), eq(mcpServers.workspaceId, workspace.id)));
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.connect_started",
      targetType: "server",
      targetId: server.id,
      data: { slug, shared, issuer: found.issuer, registration: identity.kind, scope },
    });
  });
  return { authorizationUrl: authorizationUrl.href };
}

/** Why the callback cannot complete a sign-in: the browser is told on Loadout's own page. */
export class CallbackProblem extends Error {
  override readonly name = "CallbackProblem";
}

export interface CallbackQuery {
  state?: string | undefined;
  code?: string | undefined;
  iss?: string | undefined;
  error?: string | undefined;
  error_description?: string | undefined;
}

/**
 * The callback (`/oauth/upstream/callback`): takes the sign-in its `state` names (once), compares
 * `iss` exactly with the issuer it was sent to (RFC 9207: when present, or when the server
 * advertises it), redeems the code with the PKCE verifier and `resource`, and stores the tokens
 * sealed as the user's (or the team's) connection. Answers the server page to go back to.
 */
export async function finishConnect({
  ctx,
  query,
  deps,
  browserUserId,
}: {
  ctx: AnonymousContext;
  query: CallbackQuery;
  deps: ServerDeps;
  /** The console user the returning browser is signed in as: it must be the one who pressed Connect. */
  browserUserId: string | null;
}): Promise<{ location: string }> {
  if (!query.state) throw new CallbackProblem("The answer from the sign-in carries no state; press Connect again.");
  const [pending] = await ctx.db
    .delete(upstreamOAuthStates)
    .where(eq(upstreamOAuthStates.stateHash, hashSecret(query.state)))
    .returning();
  if (!pending || pending.expiresAt <= ctx.now)
    throw new CallbackProblem(
      "This sign-in has expired or was already used; press Connect again on the server's page.",
    );
  const [server] = await ctx.db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, pending.serverId), eq(mcpServers.workspaceId, pending.workspaceId)))
    .limit(1);
  if (!server || server.generation !== pending.generation || server.oauthIssuer !== pending.issuer)
    throw new CallbackProblem("The server changed while you were signing in; press Connect again on its page.");
  const actor = { principal: { userId: pending.userId }, requestId: ctx.requestId, now: ctx.now };
  const workspace = await workspaceOf(ctx, pending.workspaceId);
  const back = connectLink({ ...deps, oauth: undefined }, server, workspace);
  const refuse = async (why: string) => {
    await recordEvent(ctx.db, actor, {
      workspaceId: server.workspaceId,
      action: "server.connect_failed",
      targetType: "server",
      targetId: server.id,
      data: { slug: server.slug, shared: pending.shared, error: why },
    });
    return new CallbackProblem(why);
  };
  if (browserUserId !== pending.userId)
    throw await refuse(
      "This browser is not signed in to Loadout as the account that pressed Connect: sign in to the console as that account and press Connect again.",
    );
  if (query.error)
    throw await refuse(
      `The sign-in at ${pending.issuer} ended with ${query.error}${query.error_description ? ` (${query.error_description.slice(0, 200)})` : ""}.`,
    );
  if (!query.code) throw await refuse("The answer from the sign-in carries no code.");
  const metadata = server.oauthMetadata as Parameters<typeof exchangeAuthorization>[1]["metadata"] & object;
  try {
    validateAuthorizationResponseIssuer({
      iss: query.iss,
      expectedIssuer: pending.issuer,
      issParameterSupported:
        (metadata as { authorization_response_iss_parameter_supported?: unknown })
          .authorization_response_iss_parameter_supported === true,
    });
  } catch (error) {
    if (!(error instanceof IssuerMismatchError)) throw error;
    throw await refuse(
      `The answer came from ${query.iss ? `issuer ${query.iss.slice(0, 200)}` : "an unnamed issuer"}, not ${pending.issuer}, where this sign-in was sent (a mix-up); nothing was stored.`,
    );
  }
  const oauth = deps.oauth;
  if (!oauth) throw await refuse("This deployment cannot sign in to remote servers.");
  let tokens: Awaited<ReturnType<typeof exchangeAuthorization>>;
  try {
    tokens = await exchangeAuthorization(pending.issuer, {
      metadata,
      clientInformation: await connectionClient(ctx.db, deps.box, server, pending),
      authorizationCode: query.code,
      ...(query.iss !== undefined ? { iss: query.iss } : {}),
      codeVerifier: await deps.box.open(pending.verifier, verifierAd(pending.id)),
      redirectUri: pending.redirectUri,
      resource: pending.resource,
      fetchFn: cappedFetch(oauth.fetch),
    });
  } catch (error) {
    // A dynamic registration the server no longer knows (it answers invalid_client) is forgotten,
    // so the next Connect registers again (PROTOCOLS.md §5.2: how servers force re-registration).
    if ((error as { code?: unknown }).code === "invalid_client" && pending.registrationId)
      await forgetRegistration(ctx, pending.registrationId);
    throw await refuse(
      `${pending.issuer} did not redeem the sign-in (${error instanceof Error ? error.message.slice(0, 200) : "no reason given"}).`,
    );
  }
  const owner = ownerOf(pending.shared ? "shared" : "per-user", pending.userId);
  const values = {
    connectedBy: pending.userId,
    issuer: pending.issuer,
    registrationId: pending.registrationId,
    clientId: pending.clientId,
    resource: pending.resource,
    accessToken: await deps.box.seal(tokens.access_token, tokenAd(server.id, owner, "access")),
    refreshToken: tokens.refresh_token
      ? await deps.box.seal(tokens.refresh_token, tokenAd(server.id, owner, "refresh"))
      : null,
    expiresAt: expiryOf(tokens.expires_in, ctx.now),
    scope: tokens.scope ?? pending.scope,
    status: "connected" as const,
    lastError: null,
    stepUpScope: null,
    updatedAt: ctx.now,
  };
  await ctx.db.transaction(async (tx) => {
    const [current] = await tx
      .select({ version: upstreamOAuthConnections.version })
      .from(upstreamOAuthConnections)
      .where(and(eq(upstreamOAuthConnections.serverId, server.id), eq(upstreamOAuthConnections.owner, owner)))
      .for("update");
    await tx
      .insert(upstreamOAuthConnections)
      .values({
        id: newId("upstreamConnection", ctx.now.getTime()),
        workspaceId: server.workspaceId,
        serverId: server.id,
        owner,
        userId: pending.shared ? null : pending.userId,
        createdAt: ctx.now,
        version: 1,
        ...values,
      })
      .onConflictDoUpdate({
        target: [upstreamOAuthConnections.serverId, upstreamOAuthConnections.owner],
        set: { ...values, version: (current?.version ?? 0) + 1 },
      });
    await recordEvent(tx, actor, {
      workspaceId: server.workspaceId,
      action: "server.connected",
      targetType: "server",
      targetId: server.id,
      data: { slug: server.slug, shared: pending.shared, issuer: pending.issuer, scope: values.scope },
    });
    // A server whose listing failed for want of a sign-in is tried again.
    if (server.status === "failed")
      await tx.update(mcpServers).set({ status: "unknown" }).where(eq(mcpServers.id, server.id));
  });
  deps.pool?.drop(server.id, owner, server.generation);
  return { location: `${back}&connected=1` };
}

async function workspaceOf(ctx: AnonymousContext, workspaceId: string): Promise<string> {
  const [row] = await ctx.db
    .select({ kind: workspaces.kind, slug: workspaces.slug })
    .from(workspaces)
    .where(eq(workspaces.id, workspaceId))
    .limit(1);
  return row ? workspaceParam(row) : "me";
}

import { newId, oauthAuthorizations, oauthClients } from "@loadout/db";
import { and, eq, gt, isNull } from "drizzle-orm";
import { hashSecret, randomBase62 } from "../../auth/secrets";
import {
  AUTHORIZATION_CODE_SECONDS,
  AUTHORIZATION_REQUEST_SECONDS,
  CODE_PREFIX,
  grantableScopes,
  OAUTH_SCOPES,
  scopeDescription,
} from "../../domain/oauth/lifetimes";
import { isValidCodeChallenge } from "../../domain/oauth/pkce";
import { authorizationResponseUrl } from "../../domain/oauth/redirect";
import { canonicalResource } from "../../domain/oauth/resource";
import { AppError } from "../../errors";
import { OAuthError } from "../../oauth/errors";
import type { AuthorizationDecisionInput, AuthorizationRequestView } from "../../schemas/oauth";
import { recordEvent } from "../audit";
import type { ActionContext, AnonymousContext } from "../context";
import { hitRateLimit, type RateLimitRule } from "../rate-limit";
import { personalWorkspaceId, resolveWorkspace } from "../workspaces/access";
import { assertSameBrowser } from "./browser-binding";
import { clientDomain, findClient } from "./clients";
import type { OAuthDeps } from "./deps";
import { maybeSweepOAuth } from "./sweep";

/** Authorization requests an address may start in a window (a person needs a handful). */
export const AUTHORIZE_PER_ADDRESS: RateLimitRule = { limit: 60, windowSeconds: 10 * 60 };

export type AuthorizeOutcome =
  /** The request cannot be trusted to redirect (unknown client, unregistered redirect URI): show the error. */
  | { kind: "error"; error: OAuthError }
  /** An error the client hears about at its redirect URI. */
  | { kind: "redirect"; location: string }
  /** Valid: stored, and the user goes on to sign in and consent. */
  | { kind: "consent"; id: string };

/**
 * `/oauth/authorize`: checks the request in the order that keeps redirects safe — the client and
 * its exact redirect URI first (errors there are shown, never redirected), then PKCE S256, state,
 * the resource and the scope (errors there go back to the client with `state` and `iss`).
 */
export async function startAuthorization({
  ctx,
  params,
  issuer,
  deps,
  address,
}: {
  ctx: AnonymousContext;
  params: Record<string, string | undefined>;
  issuer: string;
  deps: OAuthDeps;
  address: string | null;
}): Promise<AuthorizeOutcome> {
  // Anonymous, and it may fetch a metadata document: bounded per address like sign-in.
  const limit = await hitRateLimit(ctx.db, `oauth-authorize:${address ?? "unknown"}`, AUTHORIZE_PER_ADDRESS, ctx.now);
  if (!limit.allowed) {
    return {
      kind: "error",
      error: new OAuthError(
        "temporarily_unavailable",
        `Too many authorization requests from this address; try again in ${limit.retryAfter} s.`,
        { status: 429, headers: { "Retry-After": String(limit.retryAfter) } },
      ),
    };
  }
  const clientId = params.client_id ?? "";
  if (!clientId) return { kind: "error", error: new OAuthError("invalid_request", "client_id is missing.") };
  let client: Awaited<ReturnType<typeof findClient>>;
  try {
    client = await findClient(ctx, clientId, deps);
  } catch (error) {
    if (error instanceof OAuthError) return { kind: "error", error };
    throw error;
  }
  const redirectUri = params.redirect_uri ?? "";
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      kind: "error",
      error: new OAuthError(
        "invalid_request",
        redirectUri
          ? `redirect_uri ${redirectUri} is not one ${client.name} registered; it must match exactly.`
          : "redirect_uri is missing.",
      ),
    };
  }
  const state = params.state;
  const fail = (error: string, description: string): AuthorizeOutcome => ({
    kind: "redirect",
    location: authorizationResponseUrl(redirectUri, { error, error_description: description, state, iss: issuer }),
  });
  if (params.response_type !== "code") return fail("unsupported_response_type", 'response_type must be "code".');
  if (!state) return fail("invalid_request", "state is required.");
  if (state.length > 1000) return fail("invalid_request", "state is too long (at most 1000 characters).");
  if (!params.code_challenge) return fail("invalid_request", "PKCE is required: send code_challenge with S256.");
  if (params.code_challenge_method !== "S256") {
    return fail("invalid_request", "code_challenge_method must be S256; plain is not supported.");
  }
  if (!isValidCodeChallenge(params.code_challenge)) {
    return fail("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters).");
  }
  if (!params.resource) return fail("invalid_target", `resource is required: send the MCP URL, such as ${issuer}/mcp.`);
  const target = canonicalResource(params.resource, issuer);
  if ("problem" in target) return fail("invalid_target", `${target.problem}.`);
  const requested = (params.scope ?? "").split(" ").filter(Boolean);
  const grantable: readonly string[] = grantableScopes(target.kind);
  const unknown = requested.filter((s) => !grantable.includes(s));
  if (unknown.length > 0) {
    return fail("invalid_scope", `Unknown scope ${unknown.join(", ")}; this resource grants: ${grantable.join(" ")}.`);
  }
  const scopes = requested.length > 0 ? [...new Set(requested)] : [...OAUTH_SCOPES];
  const id = newId("oauthAuthorization", ctx.now.getTime());
  await ctx.db.insert(oauthAuthorizations).values({
    id,
    clientRef: client.id,
    redirectUri,
    state,
    codeChallenge: params.code_challenge,
    scopes,
    resource: target.resource,
    createdAt: ctx.now,
    expiresAt: new Date(ctx.now.getTime() + AUTHORIZATION_REQUEST_SECONDS * 1000),
  });
  await maybeSweepOAuth(ctx.db, ctx.now);
  return { kind: "consent", id };
}

const requestNotFound = (id: string) =>
  new AppError(
    "not_found",
    `Authorization request "${id}" was not found, has expired or was answered already. Start again from the app you are connecting.`,
  );

async function pendingRequest(ctx: ActionContext, id: string) {
  const [row] = await ctx.db
    .select({
      id: oauthAuthorizations.id,
      redirectUri: oauthAuthorizations.redirectUri,
      state: oauthAuthorizations.state,
      scopes: oauthAuthorizations.scopes,
      resource: oauthAuthorizations.resource,
      expiresAt: oauthAuthorizations.expiresAt,
      client: {
        id: oauthClients.id,
        clientId: oauthClients.clientId,
        kind: oauthClients.kind,
        name: oauthClients.name,
        clientUri: oauthClients.clientUri,
        redirectUris: oauthClients.redirectUris,
      },
    })
    .from(oauthAuthorizations)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthAuthorizations.clientRef))
    .where(
      and(
        eq(oauthAuthorizations.id, id),
        isNull(oauthAuthorizations.decidedAt),
        gt(oauthAuthorizations.expiresAt, ctx.now),
      ),
    )
    .limit(1);
  if (!row) throw requestNotFound(id);
  return row;
}

/** What the consent page shows: the client (and its verified domain), where it redirects, what it reaches. */
export async function describeAuthorization({
  ctx,
  id,
  browser,
}: {
  ctx: ActionContext;
  id: string;
  /** The browser's binding cookie, and the key that checks it (see browser-binding.ts). */
  browser: { secretKey: string; cookie: string | undefined };
}): Promise<AuthorizationRequestView> {
  const row = await pendingRequest(ctx, id);
  assertSameBrowser(browser.secretKey, row.id, browser.cookie);
  return {
    id: row.id,
    client: {
      name: row.client.name,
      kind: row.client.kind,
      clientId: row.client.clientId,
      uri: row.client.clientUri,
      ...clientDomain(row.client),
    },
    redirectUri: row.redirectUri,
    resource: row.resource,
    scopes: row.scopes.map((name) => ({
      name,
      description: scopeDescription(name),
    })),
    expiresAt: row.expiresAt.toISOString(),
  };
}

/**
 * The user's answer. Approval binds the request to the signed-in user and their choices and
 * issues a single-use code (kept as a hash) for 60 s; denial answers `access_denied`. Either
 * way the request cannot be answered again. Only a console session may consent: an API token
 * must not be able to mint connections on its own.
 */
export async function decideAuthorization({
  ctx,
  id,
  input,
  issuer,
  browser,
}: {
  ctx: ActionContext;
  id: string;
  input: AuthorizationDecisionInput;
  issuer: string;
  browser: { secretKey: string; cookie: string | undefined };
}): Promise<{ redirectTo: string }> {
  const row = await pendingRequest(ctx, id);
  assertSameBrowser(browser.secretKey, row.id, browser.cookie);
  if (ctx.principal.kind !== "session") {
    throw new AppError("forbidden", "Only a person signed in to the console can answer an authorization request.");
  }
  const workspace =
    input.approve && input.workspace ? await resolveWorkspace(ctx.db, ctx.principal, input.workspace) : null;
  const code = input.approve ? CODE_PREFIX + randomBase62(43) : null;
  return ctx.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(oauthAuthorizations)
      .set({
        decidedAt: ctx.now,
        ...(code
          ? {
              userId: ctx.principal.userId,
              workspaceId: workspace?.id ?? null,
              project: input.project || null,
              mode: input.mode ?? null,
              codeHash: hashSecret(code),
              codeExpiresAt: new Date(ctx.now.getTime() + AUTHORIZATION_CODE_SECONDS * 1000),
            }
          : {}),
      })
      .where(and(eq(oauthAuthorizations.id, row.id), isNull(oauthAuthorizations.decidedAt)))
      .returning({ id: oauthAuthorizations.id });
    if (!updated) throw requestNotFound(id);
    const auditWorkspace = workspace?.id ?? (await personalWorkspaceId(tx, ctx.principal.userId));
    if (auditWorkspace) {
      await recordEvent(tx, ctx, {
        workspaceId: auditWorkspace,
        action: code ? "oauth.consent_granted" : "oauth.consent_denied",
        targetType: "oauth_client",
        targetId: row.client.id,
        data: {
          client: row.client.name,
          resource: row.resource,
          scopes: row.scopes,
          ...(code ? { project: input.project || null, mode: input.mode ?? null } : {}),
        },
      });
    }
    const redirectTo = code
      ? authorizationResponseUrl(row.redirectUri, { code, state: row.state, iss: issuer })
      : authorizationResponseUrl(row.redirectUri, {
          error: "access_denied",
          error_description: "The user declined the connection.",
          state: row.state,
          iss: issuer,
        });
    return { redirectTo };
  });
}

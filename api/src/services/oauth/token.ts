import { newId, oauthAuthorizations, oauthGrants, oauthTokens } from "@loadout/db";
import { and, eq, isNull, ne } from "drizzle-orm";
import { hashSecret } from "../../auth/secrets";
import { CODE_PREFIX, looksLikeOAuthSecret, REFRESH_TOKEN_PREFIX } from "../../domain/oauth/lifetimes";
import { verifierMatches } from "../../domain/oauth/pkce";
import { canonicalResource } from "../../domain/oauth/resource";
import { OAuthError } from "../../oauth/errors";
import type { AnonymousContext } from "../context";
import { findClient } from "./clients";
import type { OAuthDeps } from "./deps";
import { type IssuedTokens, issueTokens, revokeGrant } from "./grants";

type Form = Record<string, string | undefined>;

const badGrant = (why: string) => new OAuthError("invalid_grant", why);

/**
 * `/oauth/token`. Clients are public (PKCE, no secret): the `client_id` must name a known client,
 * or the answer is `401 invalid_client`, which makes connectors such as Claude register again.
 */
export async function exchangeToken({
  ctx,
  form,
  issuer,
  deps,
}: {
  ctx: AnonymousContext;
  form: Form;
  issuer: string;
  deps: OAuthDeps;
}): Promise<IssuedTokens> {
  const grantType = form.grant_type;
  if (grantType !== "authorization_code" && grantType !== "refresh_token") {
    throw new OAuthError(
      "unsupported_grant_type",
      grantType ? `grant_type ${grantType} is not supported.` : "grant_type is missing.",
    );
  }
  if (!form.client_id) throw new OAuthError("invalid_client", "client_id is missing; public clients must send it.");
  const client = await findClient(ctx, form.client_id, deps);
  return grantType === "authorization_code"
    ? redeemCode(ctx, client.id, form, issuer)
    : refresh(ctx, client.id, form, issuer);
}

/**
 * A code is redeemed once. It is marked used before anything else is checked, so a wrong
 * verifier burns it; a code presented again revokes the grant it was redeemed for (RFC 6749 §4.1.2).
 */
async function redeemCode(ctx: AnonymousContext, clientRef: string, form: Form, issuer: string): Promise<IssuedTokens> {
  const code = form.code ?? "";
  if (!looksLikeOAuthSecret(code, CODE_PREFIX)) throw badGrant("The authorization code is not valid.");
  const outcome = await ctx.db.transaction(async (tx): Promise<{ error: OAuthError } | { tokens: IssuedTokens }> => {
    const [row] = await tx
      .select()
      .from(oauthAuthorizations)
      .where(eq(oauthAuthorizations.codeHash, hashSecret(code)))
      .for("update")
      .limit(1);
    if (!row?.userId || !row.codeExpiresAt) return { error: badGrant("The authorization code is not valid.") };
    if (row.codeUsedAt) {
      if (row.grantId) {
        const [grant] = await tx
          .select({ id: oauthGrants.id, userId: oauthGrants.userId, workspaceId: oauthGrants.workspaceId })
          .from(oauthGrants)
          .where(eq(oauthGrants.id, row.grantId))
          .limit(1);
        if (grant) await revokeGrant(tx, grant, "code_reuse", ctx);
      }
      return { error: badGrant("The authorization code was used already; the tokens issued for it are revoked.") };
    }
    await tx.update(oauthAuthorizations).set({ codeUsedAt: ctx.now }).where(eq(oauthAuthorizations.id, row.id));
    if (row.codeExpiresAt <= ctx.now)
      return { error: badGrant("The authorization code has expired; authorize again.") };
    if (row.clientRef !== clientRef) return { error: badGrant("The authorization code was issued to another client.") };
    if (form.redirect_uri !== row.redirectUri) {
      return { error: badGrant("redirect_uri does not match the one the code was issued for.") };
    }
    if (!form.code_verifier) return { error: badGrant("code_verifier is missing (PKCE).") };
    if (!verifierMatches(form.code_verifier, row.codeChallenge))
      return { error: badGrant("code_verifier does not match the code_challenge.") };
    if (form.resource !== undefined) {
      const target = canonicalResource(form.resource, issuer);
      if ("problem" in target || target.resource !== row.resource) {
        return { error: new OAuthError("invalid_target", `resource must be ${row.resource}, the one authorized.`) };
      }
    }
    const grantId = newId("oauthGrant", ctx.now.getTime());
    await tx.insert(oauthGrants).values({
      id: grantId,
      userId: row.userId,
      workspaceId: row.workspaceId,
      clientRef: row.clientRef,
      resource: row.resource,
      scopes: row.scopes,
      project: row.project,
      mode: row.mode,
      createdAt: ctx.now,
    });
    await tx.update(oauthAuthorizations).set({ grantId }).where(eq(oauthAuthorizations.id, row.id));
    // Connecting the same app to the same URL again replaces the earlier connection, so Connected
    // apps lists each app once and the abandoned tokens stop working.
    const earlier = await tx
      .select({ id: oauthGrants.id, userId: oauthGrants.userId, workspaceId: oauthGrants.workspaceId })
      .from(oauthGrants)
      .where(
        and(
          eq(oauthGrants.userId, row.userId),
          eq(oauthGrants.clientRef, row.clientRef),
          eq(oauthGrants.resource, row.resource),
          isNull(oauthGrants.revokedAt),
          ne(oauthGrants.id, grantId),
        ),
      );
    for (const grant of earlier) await revokeGrant(tx, grant, "replaced", ctx);
    return { tokens: await issueTokens(tx, grantId, row.scopes, ctx.now) };
  });
  // Burning the code and revoking a reused one's grant commit; only then is the error thrown.
  if ("error" in outcome) throw outcome.error;
  return outcome.tokens;
}

/**
 * Refresh tokens rotate on every use. Presenting one that was used already means two parties
 * hold it: the whole grant is revoked (OAuth 2.1 §4.3.1).
 */
async function refresh(ctx: AnonymousContext, clientRef: string, form: Form, issuer: string): Promise<IssuedTokens> {
  const secret = form.refresh_token ?? "";
  if (!looksLikeOAuthSecret(secret, REFRESH_TOKEN_PREFIX)) throw badGrant("The refresh token is not valid.");
  const outcome = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        id: oauthTokens.id,
        usedAt: oauthTokens.usedAt,
        revokedAt: oauthTokens.revokedAt,
        expiresAt: oauthTokens.expiresAt,
        grant: {
          id: oauthGrants.id,
          userId: oauthGrants.userId,
          workspaceId: oauthGrants.workspaceId,
          clientRef: oauthGrants.clientRef,
          resource: oauthGrants.resource,
          scopes: oauthGrants.scopes,
          revokedAt: oauthGrants.revokedAt,
        },
      })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
      .where(and(eq(oauthTokens.secretHash, hashSecret(secret)), eq(oauthTokens.kind, "refresh")))
      .for("update", { of: oauthTokens })
      .limit(1);
    if (!row || row.grant.clientRef !== clientRef) return { error: badGrant("The refresh token is not valid.") };
    if (row.grant.revokedAt || row.revokedAt)
      return { error: badGrant("The refresh token was revoked; authorize again.") };
    if (row.usedAt) {
      await revokeGrant(tx, row.grant, "refresh_reuse", ctx);
      return { error: badGrant("The refresh token was used already; the connection is revoked. Authorize again.") };
    }
    if (row.expiresAt <= ctx.now) return { error: badGrant("The refresh token has expired; authorize again.") };
    if (form.resource !== undefined) {
      const target = canonicalResource(form.resource, issuer);
      if ("problem" in target || target.resource !== row.grant.resource) {
        return {
          error: new OAuthError("invalid_target", `resource must be ${row.grant.resource}, the one authorized.`),
        };
      }
    }
    if (form.scope !== undefined) {
      const asked = form.scope.split(" ").filter(Boolean);
      if (asked.some((s) => !row.grant.scopes.includes(s))) {
        return { error: new OAuthError("invalid_scope", "A refresh cannot widen the scope granted.") };
      }
    }
    await tx.update(oauthTokens).set({ usedAt: ctx.now }).where(eq(oauthTokens.id, row.id));
    return { tokens: await issueTokens(tx, row.grant.id, row.grant.scopes, ctx.now) };
  });
  // The revocation of a reused token commits; only then is the error thrown.
  if ("error" in outcome) throw outcome.error;
  return outcome.tokens;
}

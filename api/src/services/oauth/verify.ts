import { type Database, memberships, oauthGrants, oauthTokens, workspaces } from "@loadout/db";
import { and, eq, sql } from "drizzle-orm";
import { hashSecret } from "../../auth/secrets";
import { ACCESS_TOKEN_PREFIX, looksLikeOAuthSecret } from "../../domain/oauth/lifetimes";
import { isScope } from "../../domain/scopes";
import { AppError } from "../../errors";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { ResolvedPrincipal } from "../auth/resolve-principal";
import { prepared } from "../prepared";
import { workspaceColumns } from "../workspaces/access";

const LAST_USED_RESOLUTION_MS = 60_000;

export interface ResolvedAccessToken extends ResolvedPrincipal {
  workspaces: WorkspaceView[];
  /** The canonical MCP URL the token is bound to. */
  audience: string;
  /** Project and mode pinned on the consent page. */
  pins: { project: string | null; mode: "agent" | "plan" | "goal" | null };
}

export function looksLikeAccessToken(secret: string): boolean {
  return looksLikeOAuthSecret(secret, ACCESS_TOKEN_PREFIX);
}

/**
 * An OAuth access token's principal, the workspaces it reaches and its audience, in one round
 * trip (a prepared statement, like the API token's), so /mcp pays the same for either.
 */
export async function principalAndWorkspacesFromAccessToken(
  db: Database,
  secret: string,
  now: Date,
): Promise<ResolvedAccessToken> {
  if (!looksLikeAccessToken(secret)) {
    throw new AppError("unauthorized", "The bearer token is not a Loadout access token. Connect the app again.");
  }
  const rows = await prepared(db, "oauth_access_with_workspaces", (d) =>
    d
      .select({
        token: {
          expiresAt: oauthTokens.expiresAt,
          revokedAt: oauthTokens.revokedAt,
          kind: oauthTokens.kind,
        },
        grant: {
          id: oauthGrants.id,
          userId: oauthGrants.userId,
          workspaceId: oauthGrants.workspaceId,
          resource: oauthGrants.resource,
          scopes: oauthGrants.scopes,
          project: oauthGrants.project,
          mode: oauthGrants.mode,
          lastUsedAt: oauthGrants.lastUsedAt,
          revokedAt: oauthGrants.revokedAt,
        },
        workspace: workspaceColumns,
      })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
      .leftJoin(
        memberships,
        and(
          eq(memberships.userId, oauthGrants.userId),
          sql`(${oauthGrants.workspaceId} is null or ${memberships.workspaceId} = ${oauthGrants.workspaceId})`,
        ),
      )
      .leftJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(eq(oauthTokens.secretHash, sql.placeholder("hash")))
      .orderBy(workspaces.kind, workspaces.slug)
      .prepare("oauth_access_with_workspaces"),
  ).execute({ hash: hashSecret(secret) });
  const first = rows[0];
  if (first?.token.kind !== "access") {
    throw new AppError("unauthorized", "This access token is not known. Connect the app again.");
  }
  const { token, grant } = first;
  if (token.revokedAt || grant.revokedAt) {
    throw new AppError("unauthorized", "This access token was revoked. Connect the app again.");
  }
  if (token.expiresAt <= now) {
    throw new AppError("unauthorized", "This access token has expired. Refresh it, or connect the app again.");
  }
  const reached = rows.flatMap(({ workspace: w }) =>
    w?.id && w.slug && w.name !== null && w.kind && w.role && w.createdAt
      ? [{ id: w.id, slug: w.slug, name: w.name, kind: w.kind, role: w.role, createdAt: w.createdAt.toISOString() }]
      : [],
  );
  const stale = !grant.lastUsedAt || now.getTime() - grant.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS;
  return {
    principal: {
      kind: "oauth",
      userId: grant.userId,
      grantId: grant.id,
      scopes: grant.scopes.filter(isScope),
      workspaceId: grant.workspaceId,
    },
    workspaces: reached,
    expiresAt: token.expiresAt,
    audience: grant.resource,
    pins: { project: grant.project, mode: grant.mode },
    ...(stale
      ? {
          after: (d: Database) =>
            d
              .update(oauthGrants)
              .set({ lastUsedAt: now })
              .where(eq(oauthGrants.id, grant.id))
              .then(() => {}),
        }
      : {}),
  };
}

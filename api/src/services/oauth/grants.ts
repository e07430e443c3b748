import { type Database, newId, oauthGrants, oauthTokens } from "@loadout/db";
import { and, eq, isNull } from "drizzle-orm";
import { hashSecret, randomBase62 } from "../../auth/secrets";
import {
  ACCESS_TOKEN_PREFIX,
  ACCESS_TOKEN_SECONDS,
  REFRESH_TOKEN_PREFIX,
  REFRESH_TOKEN_SECONDS,
} from "../../domain/oauth/lifetimes";
import { recordEvent } from "../audit";
import { personalWorkspaceId } from "../workspaces/access";

/** Why a grant ended; `replaced`: the user connected the same app to the same URL again. */
export type RevokeReason = "user" | "client" | "code_reuse" | "refresh_reuse" | "replaced" | "membership_ended";

/** Ends a grant and every token of it, at once. Revoking a revoked grant changes nothing. */
export async function revokeGrant(
  tx: Database,
  grant: { id: string; userId: string; workspaceId: string | null },
  reason: RevokeReason,
  actor: { requestId: string; now: Date },
): Promise<boolean> {
  const [revoked] = await tx
    .update(oauthGrants)
    .set({ revokedAt: actor.now, revokedReason: reason })
    .where(and(eq(oauthGrants.id, grant.id), isNull(oauthGrants.revokedAt)))
    .returning({ id: oauthGrants.id });
  if (!revoked) return false;
  await tx
    .update(oauthTokens)
    .set({ revokedAt: actor.now })
    .where(and(eq(oauthTokens.grantId, grant.id), isNull(oauthTokens.revokedAt)));
  const auditWorkspace = grant.workspaceId ?? (await personalWorkspaceId(tx, grant.userId));
  if (auditWorkspace) {
    await recordEvent(
      tx,
      { principal: { userId: grant.userId }, requestId: actor.requestId, now: actor.now },
      {
        workspaceId: auditWorkspace,
        action: "oauth.grant_revoked",
        targetType: "oauth_grant",
        targetId: grant.id,
        data: { reason },
      },
    );
  }
  return true;
}

export interface IssuedTokens {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/** A new access token and refresh token for a grant; only their hashes are stored. */
export async function issueTokens(tx: Database, grantId: string, scopes: string[], now: Date): Promise<IssuedTokens> {
  const access = ACCESS_TOKEN_PREFIX + randomBase62(43);
  const refresh = REFRESH_TOKEN_PREFIX + randomBase62(43);
  await tx.insert(oauthTokens).values([
    {
      id: newId("oauthToken", now.getTime()),
      grantId,
      kind: "access",
      secretHash: hashSecret(access),
      createdAt: now,
      expiresAt: new Date(now.getTime() + ACCESS_TOKEN_SECONDS * 1000),
    },
    {
      id: newId("oauthToken", now.getTime()),
      grantId,
      kind: "refresh",
      secretHash: hashSecret(refresh),
      createdAt: now,
      expiresAt: new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000),
    },
  ]);
  return {
    access_token: access,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_SECONDS,
    refresh_token: refresh,
    scope: scopes.join(" "),
  };
}

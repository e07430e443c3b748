import { oauthGrants, oauthTokens } from "@loadout/db";
import { and, eq, isNull } from "drizzle-orm";
import { hashSecret } from "../../auth/secrets";
import type { AnonymousContext } from "../context";
import { findClient } from "./clients";
import type { OAuthDeps } from "./deps";
import { revokeGrant } from "./grants";

/**
 * RFC 7009 revocation. Revoking a refresh token ends the whole grant (its access tokens too);
 * revoking an access token ends that token. Unknown tokens, and tokens of another client, are
 * answered the same as success, so the endpoint tells nothing about tokens it did not issue to
 * the caller.
 */
export async function revokeOAuthToken({
  ctx,
  form,
  deps,
}: {
  ctx: AnonymousContext;
  form: Record<string, string | undefined>;
  deps: OAuthDeps;
}): Promise<void> {
  const client = await findClient(ctx, form.client_id ?? "", deps);
  const token = form.token ?? "";
  if (!token || token.length > 200) return;
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .select({
        id: oauthTokens.id,
        kind: oauthTokens.kind,
        grant: {
          id: oauthGrants.id,
          userId: oauthGrants.userId,
          workspaceId: oauthGrants.workspaceId,
          clientRef: oauthGrants.clientRef,
        },
      })
      .from(oauthTokens)
      .innerJoin(oauthGrants, eq(oauthGrants.id, oauthTokens.grantId))
      .where(eq(oauthTokens.secretHash, hashSecret(token)))
      .limit(1);
    if (!row || row.grant.clientRef !== client.id) return;
    if (row.kind === "refresh") {
      await revokeGrant(tx, row.grant, "client", ctx);
    } else {
      await tx
        .update(oauthTokens)
        .set({ revokedAt: ctx.now })
        .where(and(eq(oauthTokens.id, row.id), isNull(oauthTokens.revokedAt)));
    }
  });
}

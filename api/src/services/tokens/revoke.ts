import { apiTokens } from "@loadout/db";
import { and, eq, isNull, type SQL } from "drizzle-orm";
import { notFound } from "../../errors";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { personalWorkspaceId } from "../workspaces/access";

/** Revokes one of the caller's tokens at once. Revoking a revoked token is a no-op; anyone else's is a 404. */
export async function revokeToken({ ctx, input }: { ctx: ActionContext; input: { id: string } }): Promise<void> {
  const conditions: SQL[] = [eq(apiTokens.id, input.id), eq(apiTokens.userId, ctx.principal.userId)];
  if (ctx.principal.workspaceId) conditions.push(eq(apiTokens.workspaceId, ctx.principal.workspaceId));
  await ctx.db.transaction(async (tx) => {
    const [token] = await tx
      .select({
        id: apiTokens.id,
        name: apiTokens.name,
        workspaceId: apiTokens.workspaceId,
        revokedAt: apiTokens.revokedAt,
      })
      .from(apiTokens)
      .where(and(...conditions))
      .for("update")
      .limit(1);
    if (!token) throw notFound(`Token "${input.id}"`);
    if (token.revokedAt) return;
    await tx
      .update(apiTokens)
      .set({ revokedAt: ctx.now })
      .where(and(eq(apiTokens.id, token.id), isNull(apiTokens.revokedAt)));
    const auditWorkspace = token.workspaceId ?? (await personalWorkspaceId(tx, ctx.principal.userId));
    if (auditWorkspace) {
      await recordEvent(tx, ctx, {
        workspaceId: auditWorkspace,
        action: "token.revoked",
        targetType: "token",
        targetId: token.id,
        data: { name: token.name },
      });
    }
  });
}

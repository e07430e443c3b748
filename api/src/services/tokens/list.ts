import { apiTokens, workspaces } from "@loadout/db";
import { and, desc, eq, type SQL } from "drizzle-orm";
import type { TokenView } from "../../schemas/tokens";
import type { ActionContext } from "../context";
import { tokenView } from "./view";

const tokenColumns = {
  id: apiTokens.id,
  name: apiTokens.name,
  displayPrefix: apiTokens.displayPrefix,
  scopes: apiTokens.scopes,
  workspaceSlug: workspaces.slug,
  workspaceName: workspaces.name,
  createdAt: apiTokens.createdAt,
  expiresAt: apiTokens.expiresAt,
  lastUsedAt: apiTokens.lastUsedAt,
  revokedAt: apiTokens.revokedAt,
};

/** The caller's tokens, newest first. A narrowed token sees only the tokens of its workspace. */
export async function listTokens({ ctx }: { ctx: ActionContext }): Promise<TokenView[]> {
  const conditions: SQL[] = [eq(apiTokens.userId, ctx.principal.userId)];
  if (ctx.principal.workspaceId) conditions.push(eq(apiTokens.workspaceId, ctx.principal.workspaceId));
  const rows = await ctx.db
    .select(tokenColumns)
    .from(apiTokens)
    .leftJoin(workspaces, eq(workspaces.id, apiTokens.workspaceId))
    .where(and(...conditions))
    .orderBy(desc(apiTokens.id))
    .limit(500);
  return rows.map((r) => tokenView(r, ctx.now));
}

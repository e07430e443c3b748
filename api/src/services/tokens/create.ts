import { apiTokens, newId, workspaces } from "@loadout/db";
import { eq } from "drizzle-orm";
import { hashSecret, newApiTokenSecret } from "../../auth/secrets";
import { AppError } from "../../errors";
import type { CreateTokenInput, TokenView } from "../../schemas/tokens";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { personalWorkspaceId, resolveWorkspace } from "../workspaces/access";
import { tokenView } from "./view";

/**
 * Creates an API token. A token can only hand out what it holds: its scopes, and its workspace
 * if it is narrowed. The secret is returned here once and stored only as a hash.
 */
export async function createToken({
  ctx,
  input,
}: {
  ctx: ActionContext;
  input: CreateTokenInput;
}): Promise<{ token: TokenView; secret: string }> {
  const missing = input.scopes.filter((s) => !ctx.principal.scopes.includes(s));
  if (missing.length > 0) {
    throw new AppError("insufficient_scope", `This token cannot grant scopes it does not hold: ${missing.join(", ")}.`);
  }
  let workspace: { id: string; slug: string; name: string } | null = null;
  if (input.workspace) {
    workspace = await resolveWorkspace(ctx.db, ctx.principal, input.workspace);
  } else if (ctx.principal.workspaceId) {
    // A narrowed token makes tokens narrowed to the same workspace.
    const [own] = await ctx.db
      .select({ id: workspaces.id, slug: workspaces.slug, name: workspaces.name })
      .from(workspaces)
      .where(eq(workspaces.id, ctx.principal.workspaceId))
      .limit(1);
    workspace = own ?? null;
  }

  const secret = newApiTokenSecret();
  const id = newId("token", ctx.now.getTime());
  const expiresAt = input.expiresInDays ? new Date(ctx.now.getTime() + input.expiresInDays * 86_400_000) : null;
  const row = {
    id,
    userId: ctx.principal.userId,
    workspaceId: workspace?.id ?? null,
    name: input.name,
    secretHash: hashSecret(secret),
    displayPrefix: secret.slice(0, 7),
    scopes: input.scopes,
    createdAt: ctx.now,
    expiresAt,
  };
  await ctx.db.transaction(async (tx) => {
    await tx.insert(apiTokens).values(row);
    const auditWorkspace = workspace?.id ?? (await personalWorkspaceId(tx, ctx.principal.userId));
    if (auditWorkspace) {
      await recordEvent(tx, ctx, {
        workspaceId: auditWorkspace,
        action: "token.created",
        targetType: "token",
        targetId: id,
        data: { name: input.name, scopes: input.scopes, expiresAt: expiresAt?.toISOString() ?? null },
      });
    }
  });
  const token = tokenView(
    {
      ...row,
      workspaceSlug: workspace?.slug ?? null,
      workspaceName: workspace?.name ?? null,
      lastUsedAt: null,
      revokedAt: null,
    },
    ctx.now,
  );
  return { token, secret };
}

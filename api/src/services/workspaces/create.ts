import { memberships, newId, workspaces } from "@loadout/db";
import { AppError } from "../../errors";
import type { CreateWorkspaceInput, WorkspaceView } from "../../schemas/workspaces";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { uniqueViolation } from "../db-errors";

/** Creates a team workspace with the caller as its owner. */
export async function createWorkspace({
  ctx,
  input,
}: {
  ctx: ActionContext;
  input: CreateWorkspaceInput;
}): Promise<WorkspaceView> {
  if (ctx.principal.workspaceId) {
    throw new AppError(
      "forbidden",
      "A token narrowed to one workspace cannot create workspaces. Use an unnarrowed token or the console.",
    );
  }
  const id = newId("workspace", ctx.now.getTime());
  try {
    await ctx.db.transaction(async (tx) => {
      await tx.insert(workspaces).values({ id, slug: input.slug, name: input.name, kind: "team", createdAt: ctx.now });
      await tx
        .insert(memberships)
        .values({ workspaceId: id, userId: ctx.principal.userId, role: "owner", createdAt: ctx.now });
      await recordEvent(tx, ctx, {
        workspaceId: id,
        action: "workspace.created",
        targetType: "workspace",
        targetId: id,
        data: { slug: input.slug, kind: "team" },
      });
    });
  } catch (error) {
    if (uniqueViolation(error) !== null) {
      throw new AppError("conflict", `The slug "${input.slug}" is taken. Choose another one.`, {
        details: [{ path: "slug", message: "already taken" }],
      });
    }
    throw error;
  }
  return { id, slug: input.slug, name: input.name, kind: "team", role: "owner", createdAt: ctx.now.toISOString() };
}

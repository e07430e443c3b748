import { users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { AppError } from "../../errors";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { ActionContext } from "../context";
import { reachableWorkspaces } from "../workspaces/access";
import type { AccountUser } from "./create-account";

export async function getMe({
  ctx,
}: {
  ctx: ActionContext;
}): Promise<{ user: AccountUser; workspaces: WorkspaceView[] }> {
  const [[user], workspaces] = await Promise.all([
    ctx.db
      .select({ id: users.id, email: users.email, name: users.name, createdAt: users.createdAt })
      .from(users)
      .where(eq(users.id, ctx.principal.userId))
      .limit(1),
    reachableWorkspaces(ctx.db, ctx.principal),
  ]);
  if (!user) throw new AppError("unauthorized", "This account no longer exists.");
  return { user, workspaces };
}

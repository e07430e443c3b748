import { consoleSessions } from "@loadout/db";
import { eq } from "drizzle-orm";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { personalWorkspaceId } from "../workspaces/access";

/** Ends the caller's console session (a token principal has none to end). */
export async function logOut({ ctx }: { ctx: ActionContext }): Promise<void> {
  const { principal } = ctx;
  if (principal.kind !== "session") return;
  await ctx.db.transaction(async (tx) => {
    await tx.delete(consoleSessions).where(eq(consoleSessions.id, principal.sessionId));
    const workspaceId = await personalWorkspaceId(tx, principal.userId);
    if (workspaceId) {
      await recordEvent(tx, ctx, {
        workspaceId,
        action: "session.ended",
        targetType: "session",
        targetId: principal.sessionId,
      });
    }
  });
}

import { memberships } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { removalProblem } from "../../domain/teams/rights";
import { notFound } from "../../errors";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { lockRoster, refuse, resolveTeam, revokeNarrowedTokens } from "./team";

/**
 * Removes a member (owners and admins), or the caller itself (leaving). It takes effect at once:
 * the MCP endpoint resolves a token's workspaces on every request, so the next call no longer
 * lists or serves the team's items, and the member's tokens narrowed to the team are revoked.
 */
export async function removeMember({
  ctx,
  ws,
  userId,
}: {
  ctx: ActionContext;
  ws: string;
  userId: string;
}): Promise<void> {
  const team = await resolveTeam(ctx, ws);
  await ctx.db.transaction(async (tx) => {
    const roster = await lockRoster(tx, ctx, team.id);
    const role = roster.members.get(userId);
    if (!role) throw notFound(`Member "${userId}"`, "List the team's members to find their ids.");
    const self = userId === ctx.principal.userId;
    refuse(removalProblem(roster.role, { self, role, owners: roster.owners }));
    await tx.delete(memberships).where(and(eq(memberships.workspaceId, team.id), eq(memberships.userId, userId)));
    const tokensRevoked = await revokeNarrowedTokens(tx, userId, team.id, ctx.now, ctx.requestId);
    await recordEvent(tx, ctx, {
      workspaceId: team.id,
      action: self ? "member.left" : "member.removed",
      targetType: "member",
      targetId: userId,
      data: { email: roster.emails.get(userId), role, tokensRevoked },
    });
  });
}

/** Leaves a team: the caller's own removal, refused to its last owner. */
export async function leaveTeam({ ctx, ws }: { ctx: ActionContext; ws: string }): Promise<void> {
  await removeMember({ ctx, ws, userId: ctx.principal.userId });
}

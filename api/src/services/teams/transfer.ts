import { memberships } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { transferProblem } from "../../domain/teams/rights";
import { notFound } from "../../errors";
import type { TransferInput } from "../../schemas/teams";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { lockRoster, refuse, resolveTeam } from "./team";

/** Hands ownership to another member: they become an owner, the caller an admin. */
export async function transferOwnership({
  ctx,
  ws,
  input,
}: {
  ctx: ActionContext;
  ws: string;
  input: TransferInput;
}): Promise<void> {
  const team = await resolveTeam(ctx, ws);
  await ctx.db.transaction(async (tx) => {
    const roster = await lockRoster(tx, ctx, team.id);
    const target = roster.members.get(input.userId);
    if (!target) throw notFound(`Member "${input.userId}"`, "Only a member of the team can become its owner.");
    refuse(transferProblem(roster.role, { self: input.userId === ctx.principal.userId }));
    await tx
      .update(memberships)
      .set({ role: "owner" })
      .where(and(eq(memberships.workspaceId, team.id), eq(memberships.userId, input.userId)));
    await tx
      .update(memberships)
      .set({ role: "admin" })
      .where(and(eq(memberships.workspaceId, team.id), eq(memberships.userId, ctx.principal.userId)));
    await recordEvent(tx, ctx, {
      workspaceId: team.id,
      action: "member.ownership_transferred",
      targetType: "member",
      targetId: input.userId,
      data: { email: roster.emails.get(input.userId), from: target },
    });
  });
}

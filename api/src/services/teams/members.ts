import { memberships, users } from "@loadout/db";
import { and, asc, eq } from "drizzle-orm";
import { roleChangeProblem } from "../../domain/teams/rights";
import { notFound } from "../../errors";
import type { ChangeRoleInput, MemberView } from "../../schemas/teams";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockRoster, refuse, resolveTeam } from "./team";

/** The members of a workspace the caller belongs to (a personal workspace lists its one owner). */
export async function listMembers({ ctx, ws }: { ctx: ActionContext; ws: string }): Promise<MemberView[]> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const rows = await ctx.db
    .select({
      userId: memberships.userId,
      email: users.email,
      name: users.name,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspace.id))
    .orderBy(asc(memberships.createdAt), asc(users.email));
  return rows.map((r) => ({ ...r, joinedAt: r.joinedAt.toISOString() }));
}

/** Changes a member's role: owners and admins, never an owner's by an admin, never the last owner's. */
export async function changeRole({
  ctx,
  ws,
  userId,
  input,
}: {
  ctx: ActionContext;
  ws: string;
  userId: string;
  input: ChangeRoleInput;
}): Promise<MemberView> {
  const team = await resolveTeam(ctx, ws);
  await ctx.db.transaction(async (tx) => {
    const roster = await lockRoster(tx, ctx, team.id);
    const from = roster.members.get(userId);
    if (!from) throw notFound(`Member "${userId}"`, "List the team's members to find their ids.");
    refuse(
      roleChangeProblem(roster.role, {
        self: userId === ctx.principal.userId,
        from,
        to: input.role,
        owners: roster.owners,
      }),
    );
    if (from === input.role) return;
    await tx
      .update(memberships)
      .set({ role: input.role })
      .where(and(eq(memberships.workspaceId, team.id), eq(memberships.userId, userId)));
    await recordEvent(tx, ctx, {
      workspaceId: team.id,
      action: "member.role_changed",
      targetType: "member",
      targetId: userId,
      data: { email: roster.emails.get(userId), from, to: input.role },
    });
  });
  const member = (await listMembers({ ctx, ws })).find((m) => m.userId === userId);
  if (!member) throw notFound(`Member "${userId}"`);
  return member;
}

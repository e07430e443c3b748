import { newId, users, workspaceInvites } from "@loadout/db";
import { and, desc, eq, gt, isNull, or } from "drizzle-orm";
import { hashSecret, newInviteSecret } from "../../auth/secrets";
import { inviteProblem, manages } from "../../domain/teams/rights";
import { AppError, notFound } from "../../errors";
import type { CreateInviteInput, InviteView } from "../../schemas/teams";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { lockRoster, refuse, resolveTeam } from "./team";

type InviteRow = typeof workspaceInvites.$inferSelect;

export function inviteStatus(row: Pick<InviteRow, "settlement" | "expiresAt">, now: Date): InviteView["status"] {
  if (row.settlement) return row.settlement;
  return row.expiresAt <= now ? "expired" : "pending";
}

function viewOf(row: InviteRow, inviter: { id: string; email: string } | null, now: Date): InviteView {
  return {
    id: row.id,
    email: row.email,
    role: row.role,
    status: inviteStatus(row, now),
    invitedBy: inviter,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
    settledAt: row.settledAt?.toISOString() ?? null,
  };
}

/**
 * Invites an email address to the team with a role: a single-use link that expires. Inviting an
 * address again revokes its earlier pending link, so a lost link is replaced, never doubled.
 */
export async function createInvite({
  ctx,
  ws,
  input,
  origin,
}: {
  ctx: ActionContext;
  ws: string;
  input: CreateInviteInput;
  origin: string;
}): Promise<{ invite: InviteView; secret: string; url: string }> {
  const team = await resolveTeam(ctx, ws);
  const email = input.email.trim().toLowerCase();
  const secret = newInviteSecret();
  const row = await ctx.db.transaction(async (tx) => {
    const roster = await lockRoster(tx, ctx, team.id);
    refuse(inviteProblem(roster.role, input.role));
    if ([...roster.emails.values()].includes(email)) {
      throw new AppError("conflict", `${email} is already a member of ${team.slug}. Change their role instead.`, {
        details: [{ path: "email", message: "already a member" }],
      });
    }
    await tx
      .update(workspaceInvites)
      .set({ settledAt: ctx.now, settlement: "revoked", settledBy: ctx.principal.userId })
      .where(
        and(
          eq(workspaceInvites.workspaceId, team.id),
          eq(workspaceInvites.email, email),
          isNull(workspaceInvites.settledAt),
          gt(workspaceInvites.expiresAt, ctx.now),
        ),
      );
    const [created] = await tx
      .insert(workspaceInvites)
      .values({
        id: newId("invite", ctx.now.getTime()),
        workspaceId: team.id,
        email,
        role: input.role,
        secretHash: hashSecret(secret),
        invitedBy: ctx.principal.userId,
        createdAt: ctx.now,
        expiresAt: new Date(ctx.now.getTime() + input.expiresInDays * 86_400_000),
      })
      .returning();
    if (!created) throw new Error("the invite was not stored");
    await recordEvent(tx, ctx, {
      workspaceId: team.id,
      action: "invite.created",
      targetType: "invite",
      targetId: created.id,
      data: { email, role: input.role, expiresAt: created.expiresAt.toISOString() },
    });
    return created;
  });
  const inviter = { id: ctx.principal.userId, email: (await inviterEmail(ctx)) ?? "" };
  return {
    invite: viewOf(row, inviter, ctx.now),
    secret,
    // In the fragment: it never reaches a server log or a Referer header.
    url: `${origin}/invite/#token=${secret}`,
  };
}

async function inviterEmail(ctx: ActionContext): Promise<string | null> {
  const [row] = await ctx.db.select({ email: users.email }).from(users).where(eq(users.id, ctx.principal.userId));
  return row?.email ?? null;
}

/** The team's invites, newest first (owners and admins): pending ones, and the last 30 days' others. */
export async function listInvites({ ctx, ws }: { ctx: ActionContext; ws: string }): Promise<InviteView[]> {
  const team = await resolveTeam(ctx, ws);
  if (!manages(team.role)) refuse("only owners and admins can see the team's invites");
  const since = new Date(ctx.now.getTime() - 30 * 86_400_000);
  const rows = await ctx.db
    .select({ invite: workspaceInvites, inviter: { id: users.id, email: users.email } })
    .from(workspaceInvites)
    .leftJoin(users, eq(users.id, workspaceInvites.invitedBy))
    .where(
      and(
        eq(workspaceInvites.workspaceId, team.id),
        or(
          gt(workspaceInvites.createdAt, since),
          and(isNull(workspaceInvites.settledAt), gt(workspaceInvites.expiresAt, ctx.now)),
        ),
      ),
    )
    .orderBy(desc(workspaceInvites.createdAt))
    .limit(200);
  return rows.map((r) =>
    viewOf(r.invite, r.inviter?.id ? { id: r.inviter.id, email: r.inviter.email } : null, ctx.now),
  );
}

/** Revokes a pending invite: its link stops working at once. */
export async function revokeInvite({ ctx, ws, id }: { ctx: ActionContext; ws: string; id: string }): Promise<void> {
  const team = await resolveTeam(ctx, ws);
  await ctx.db.transaction(async (tx) => {
    const roster = await lockRoster(tx, ctx, team.id);
    const [row] = await tx
      .select()
      .from(workspaceInvites)
      .where(and(eq(workspaceInvites.id, id), eq(workspaceInvites.workspaceId, team.id)));
    if (!row) throw notFound(`Invite "${id}"`);
    refuse(inviteProblem(roster.role, row.role));
    if (row.settledAt) {
      throw new AppError("conflict", `This invite was already ${row.settlement}; there is nothing to revoke.`);
    }
    await tx
      .update(workspaceInvites)
      .set({ settledAt: ctx.now, settlement: "revoked", settledBy: ctx.principal.userId })
      .where(and(eq(workspaceInvites.id, id), isNull(workspaceInvites.settledAt)));
    await recordEvent(tx, ctx, {
      workspaceId: team.id,
      action: "invite.revoked",
      targetType: "invite",
      targetId: id,
      data: { email: row.email, role: row.role },
    });
  });
}

import { memberships, users, workspaceInvites, workspaces } from "@loadout/db";
import { and, eq, gt, isNull } from "drizzle-orm";
import { hashSecret, looksLikeInviteSecret } from "../../auth/secrets";
import { AppError } from "../../errors";
import type { InvitePreview } from "../../schemas/teams";
import type { WorkspaceView } from "../../schemas/workspaces";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { inviteStatus } from "./invites";

const unknownInvite = () =>
  new AppError(
    "not_found",
    "This invite link is not known: copy the whole link again, or ask the team for a new invite.",
  );

/** The invite a link's secret names, with its team and who sent it; not found when no invite has it. */
export async function findInvite(ctx: Pick<ActionContext, "db">, token: string) {
  if (!looksLikeInviteSecret(token)) throw unknownInvite();
  const [found] = await ctx.db
    .select({
      invite: workspaceInvites,
      team: { slug: workspaces.slug, name: workspaces.name },
      inviter: { email: users.email, name: users.name },
    })
    .from(workspaceInvites)
    .innerJoin(workspaces, eq(workspaces.id, workspaceInvites.workspaceId))
    .leftJoin(users, eq(users.id, workspaceInvites.invitedBy))
    .where(eq(workspaceInvites.secretHash, hashSecret(token)));
  if (!found) throw unknownInvite();
  return found;
}

/** What an invite link offers, for the page that asks to accept or decline it. */
export async function previewInvite({ ctx, token }: { ctx: ActionContext; token: string }): Promise<InvitePreview> {
  const { invite, team, inviter } = await findInvite(ctx, token);
  return {
    team,
    email: invite.email,
    role: invite.role,
    status: inviteStatus(invite, ctx.now),
    invitedBy: inviter?.email ? { email: inviter.email, name: inviter.name } : null,
    expiresAt: invite.expiresAt.toISOString(),
  };
}

async function callerEmail(ctx: ActionContext): Promise<string> {
  const [row] = await ctx.db.select({ email: users.email }).from(users).where(eq(users.id, ctx.principal.userId));
  return row?.email ?? "";
}

function unusable(status: string, team: string): AppError {
  const why =
    status === "expired"
      ? "has expired"
      : status === "revoked"
        ? "was revoked"
        : status === "accepted"
          ? "was already used"
          : "was declined";
  return new AppError("conflict", `This invite to ${team} ${why}. Ask an owner or admin of the team for a new one.`);
}

/**
 * Settles an invite once, for the signed-in account it was sent to: the first accept or decline
 * wins (a conditional update), an expired, revoked or used link is refused and changes nothing.
 */
async function settle(ctx: ActionContext, token: string, settlement: "accepted" | "declined") {
  const { invite, team } = await findInvite(ctx, token);
  const status = inviteStatus(invite, ctx.now);
  if (status !== "pending") throw unusable(status, team.slug);
  const email = await callerEmail(ctx);
  if (email !== invite.email) {
    throw new AppError(
      "forbidden",
      `This invite is for ${invite.email}, and you are signed in as ${email}. Sign in with that address, or ask for an invite to yours.`,
    );
  }
  if (ctx.principal.workspaceId) {
    throw new AppError(
      "forbidden",
      "A token narrowed to one workspace cannot join teams. Accept the invite in the console.",
    );
  }
  return ctx.db.transaction(async (tx) => {
    const [claimed] = await tx
      .update(workspaceInvites)
      .set({ settledAt: ctx.now, settlement, settledBy: ctx.principal.userId })
      .where(
        and(
          eq(workspaceInvites.id, invite.id),
          isNull(workspaceInvites.settledAt),
          gt(workspaceInvites.expiresAt, ctx.now),
        ),
      )
      .returning({ id: workspaceInvites.id });
    // Another request settled it first.
    if (!claimed) throw unusable("accepted", team.slug);
    if (settlement === "accepted") {
      const joined = await tx
        .insert(memberships)
        .values({
          workspaceId: invite.workspaceId,
          userId: ctx.principal.userId,
          role: invite.role,
          createdAt: ctx.now,
        })
        .onConflictDoNothing()
        .returning({ role: memberships.role });
      if (joined.length === 0)
        throw new AppError("conflict", `You are already a member of ${team.slug}; this invite was not used.`);
    }
    await recordEvent(tx, ctx, {
      workspaceId: invite.workspaceId,
      action: settlement === "accepted" ? "member.joined" : "invite.declined",
      targetType: settlement === "accepted" ? "member" : "invite",
      targetId: settlement === "accepted" ? ctx.principal.userId : invite.id,
      data: { email, role: invite.role, invite: invite.id },
    });
    return invite;
  });
}

/** Joins the team with the invite's role. */
export async function acceptInvite({ ctx, token }: { ctx: ActionContext; token: string }): Promise<WorkspaceView> {
  const invite = await settle(ctx, token, "accepted");
  const [row] = await ctx.db
    .select({
      id: workspaces.id,
      slug: workspaces.slug,
      name: workspaces.name,
      kind: workspaces.kind,
      createdAt: workspaces.createdAt,
    })
    .from(workspaces)
    .where(eq(workspaces.id, invite.workspaceId));
  if (!row) throw unknownInvite();
  return { ...row, role: invite.role, createdAt: row.createdAt.toISOString() };
}

/** Turns the invite down; the link stops working. */
export async function declineInvite({ ctx, token }: { ctx: ActionContext; token: string }): Promise<void> {
  await settle(ctx, token, "declined");
}

import { apiTokens, type Database, memberships, oauthGrants, users } from "@loadout/db";
import { and, eq, isNull } from "drizzle-orm";
import type { Role } from "../../domain/teams/rights";
import { AppError, notFound } from "../../errors";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { ActionContext } from "../context";
import { revokeGrant } from "../oauth/grants";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";

/** Resolves `{ws}` to a team the caller belongs to; a personal workspace has no members to manage. */
export async function resolveTeam(ctx: ActionContext, ws: string): Promise<WorkspaceView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  if (workspace.kind !== "team") {
    throw new AppError(
      "forbidden",
      "A personal workspace has no members, invites or ownership to manage. Create a team to share with others.",
    );
  }
  return workspace;
}

export interface TeamRoster {
  /** The caller's role now, read under the lock (the one resolved before may be stale). */
  role: Role;
  members: Map<string, Role>;
  emails: Map<string, string>;
  owners: number;
}

/**
 * Locks the team's row for the rest of the transaction and reads its members, so concurrent
 * changes to one team's members run one after another and the last owner can never be lost
 * between a check and a write.
 */
export async function lockRoster(tx: Database, ctx: ActionContext, workspaceId: string): Promise<TeamRoster> {
  await lockWorkspace(tx, workspaceId);
  const rows = await tx
    .select({ userId: memberships.userId, role: memberships.role, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.workspaceId, workspaceId));
  const members = new Map(rows.map((r) => [r.userId, r.role]));
  const role = members.get(ctx.principal.userId);
  // The caller left or was removed since the workspace was resolved: as if it never reached it.
  if (!role) throw notFound("Workspace");
  const emails = new Map(rows.map((r) => [r.userId, r.email]));
  return { role, members, emails, owners: rows.filter((r) => r.role === "owner").length };
}

export function refuse(problem: string | null): void {
  if (problem) throw new AppError("forbidden", `${problem[0]?.toUpperCase()}${problem.slice(1)}.`);
}

/**
 * Revokes a departing member's tokens narrowed to the team: they reach nothing else, and a token
 * that stops working says so (401 "revoked") rather than answering with an empty workspace.
 */
export async function revokeNarrowedTokens(
  tx: Database,
  userId: string,
  workspaceId: string,
  now: Date,
  requestId = "membership",
) {
  const revoked = await tx
    .update(apiTokens)
    .set({ revokedAt: now })
    .where(and(eq(apiTokens.userId, userId), eq(apiTokens.workspaceId, workspaceId), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  // Connected apps narrowed to the team end too: refused, not left reaching nothing.
  const grants = await tx
    .select({ id: oauthGrants.id, userId: oauthGrants.userId, workspaceId: oauthGrants.workspaceId })
    .from(oauthGrants)
    .where(
      and(eq(oauthGrants.userId, userId), eq(oauthGrants.workspaceId, workspaceId), isNull(oauthGrants.revokedAt)),
    );
  for (const grant of grants) await revokeGrant(tx, grant, "membership_ended", { requestId, now });
  return revoked.length + grants.length;
}

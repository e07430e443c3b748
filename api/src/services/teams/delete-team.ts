import { mcpServers, workspaces } from "@loadout/db";
import { eq } from "drizzle-orm";
import { deletionProblem } from "../../domain/teams/rights";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import type { ServerDeps } from "../servers/upstreams";
import { personalWorkspaceId } from "../workspaces/access";
import { lockRoster, refuse, resolveTeam } from "./team";

/**
 * Deletes a team with everything it holds (skills, history, servers, invites, its log, tokens
 * narrowed to it): owners only. The deletion is recorded in the owner's personal log, since the
 * team's own goes with it.
 */
export async function deleteTeam({ ctx, ws, deps }: { ctx: ActionContext; ws: string; deps: ServerDeps }) {
  const team = await resolveTeam(ctx, ws);
  const servers = await ctx.db.transaction(async (tx) => {
    const roster = await lockRoster(tx, ctx, team.id);
    refuse(deletionProblem(roster.role));
    const held = await tx.select({ id: mcpServers.id }).from(mcpServers).where(eq(mcpServers.workspaceId, team.id));
    await tx.delete(workspaces).where(eq(workspaces.id, team.id));
    const personal = await personalWorkspaceId(tx, ctx.principal.userId);
    if (personal) {
      await recordEvent(tx, ctx, {
        workspaceId: personal,
        action: "workspace.deleted",
        targetType: "workspace",
        targetId: team.id,
        data: { slug: team.slug, teamName: team.name, members: roster.members.size },
      });
    }
    return held;
  });
  for (const server of servers) deps.pool?.drop(server.id);
}

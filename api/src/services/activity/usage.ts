import { auditEvents, idFloor } from "@loadout/db";
import { and, eq, sql } from "drizzle-orm";
import { type CallGroup, dayRange, summarizeUsage, type UsageSummary } from "../../domain/activity/usage";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";

/**
 * A workspace's MCP calls over the last `days` days (UTC): per day, by client and by tool, and
 * the count of each outcome, errors and refusals apart. One grouped read of the call index.
 */
export async function usageOf({
  ctx,
  ws,
  days,
}: {
  ctx: ActionContext;
  ws: string;
  days: number;
}): Promise<UsageSummary> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const dates = dayRange(ctx.now, days);
  const from = Date.parse(`${dates[0]}T00:00:00Z`);
  const day = sql<string>`to_char(${auditEvents.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
  const client = sql<string | null>`${auditEvents.data}->>'client'`;
  const outcome = sql<string>`coalesce(${auditEvents.data}->>'outcome', 'error')`;
  const rows = await ctx.db
    .select({ day, client, tool: auditEvents.targetId, outcome, calls: sql<number>`count(*)::int` })
    .from(auditEvents)
    .where(
      and(
        eq(auditEvents.workspaceId, workspace.id),
        eq(auditEvents.kind, "mcp"),
        sql`${auditEvents.id} >= ${idFloor("event", from)}`,
      ),
    )
    .groupBy(day, client, auditEvents.targetId, outcome);
  return summarizeUsage(
    rows.map((r): CallGroup => ({ ...r, calls: Number(r.calls) })),
    dates,
  );
}

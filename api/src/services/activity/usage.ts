import { mcpUsageDaily } from "@loadout/db";
import { and, eq, gte } from "drizzle-orm";
import { type CallGroup, dayRange, summarizeUsage, type UsageSummary } from "../../domain/activity/usage";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";

/**
 * A workspace's MCP calls over the last `days` days (UTC): per day, by client and by tool, and
 * the count of each outcome, errors and refusals apart. Read from the daily counts the database
 * keeps as calls are logged (mcp_usage_daily), not from the calls themselves.
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
  const rows = await ctx.db
    .select({
      day: mcpUsageDaily.day,
      client: mcpUsageDaily.client,
      tool: mcpUsageDaily.tool,
      outcome: mcpUsageDaily.outcome,
      calls: mcpUsageDaily.calls,
    })
    .from(mcpUsageDaily)
    .where(and(eq(mcpUsageDaily.workspaceId, workspace.id), gte(mcpUsageDaily.day, dates[0] ?? "")));
  return summarizeUsage(
    rows.map((r): CallGroup => ({ ...r, client: r.client === "" ? null : r.client })),
    dates,
  );
}

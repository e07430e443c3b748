import { date, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * MCP calls counted per workspace, UTC day, client, tool and outcome: what the Activity page's
 * usage summary reads, so that 30 days of a busy workspace is a few hundred rows rather than
 * every call. Kept by a trigger on audit_events (see migration 0012), whatever code path or
 * hand-written SQL inserted the calls; audit events are never updated or deleted but with their
 * workspace, which takes these rows with it.
 */
export const mcpUsageDaily = pgTable(
  "mcp_usage_daily",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    day: date("day", { mode: "string" }).notNull(),
    /** The call's client; empty when the call named none. */
    client: text("client").notNull(),
    tool: text("tool").notNull(),
    outcome: text("outcome").notNull(),
    calls: integer("calls").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.day, t.client, t.tool, t.outcome] })],
);

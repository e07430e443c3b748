import { sql } from "drizzle-orm";
import { index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * The audit log. Every write action appends one event in its own transaction; MCP calls are
 * events too (`mcp.call`). Actor columns are plain text (no foreign key) so the log outlives
 * what it describes.
 */
export const auditEvents = pgTable(
  "audit_events",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    actorUserId: text("actor_user_id"),
    actorTokenId: text("actor_token_id"),
    action: text("action").notNull(),
    targetType: text("target_type").notNull(),
    targetId: text("target_id").notNull(),
    data: jsonb("data").$type<Record<string, unknown>>().notNull().default({}),
    requestId: text("request_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * What the activity page filters on, derived by the database so that no writer has to know:
     * the part of the action before its dot (`skill`, `server`, `member`, `mcp` for calls) and
     * the item's name (the name a call gave, a skill's name, a server's slug, a member's or invitee's email,
     * else the target id).
     */
    kind: text("kind").notNull().generatedAlwaysAs(sql`split_part(action, '.', 1)`),
    item: text("item")
      .notNull()
      .generatedAlwaysAs(sql`coalesce(data->>'item', data->>'name', data->>'slug', data->>'email', target_id)`),
  },
  (t) => [
    // Activity pages read newest first within one workspace; each filter has its own index so a
    // rare actor, kind or item does not scan the whole log.
    index("audit_events_workspace_idx").on(t.workspaceId, t.id),
    index("audit_events_workspace_actor_idx").on(t.workspaceId, t.actorUserId, t.id),
    index("audit_events_workspace_kind_idx").on(t.workspaceId, t.kind, t.id),
    index("audit_events_workspace_item_idx").on(t.workspaceId, t.item, t.id),
    // The Changes filter (everything but calls): in a busy workspace the newest thousands of
    // events are calls, which a walk of the other indexes would have to step over.
    index("audit_events_workspace_change_idx").on(t.workspaceId, t.id).where(sql`${t.kind} <> 'mcp'`),
  ],
);

import { integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/** Each MCP client seen, per user and kind of session, for the console's Connect page. */
export const mcpClients = pgTable(
  "mcp_clients",
  {
    id: text("id").primaryKey(),
    /** The user's personal workspace. */
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id").notNull(),
    /** The identity of the connection: client, version, era, project, mode, endpoint, token. */
    key: text("key").notNull(),
    clientName: text("client_name").notNull(),
    clientVersion: text("client_version").notNull(),
    era: text("era", { enum: ["modern", "legacy"] }).notNull(),
    protocolVersion: text("protocol_version"),
    project: text("project"),
    mode: text("mode").notNull(),
    endpointId: text("endpoint_id"),
    tokenId: text("token_id"),
    requests: integer("requests").notNull().default(0),
    firstSeenAt: timestamp("first_seen_at", { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("mcp_clients_key").on(t.userId, t.key)],
);

import { boolean, index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";
import { workspaces } from "./workspaces";

/**
 * Saved MCP endpoints (`/mcp/e/{id}`): a URL that pins a project and a mode for clients that
 * cannot send headers. The id is not a secret; the caller still authenticates.
 */
export const mcpEndpoints = pgTable(
  "mcp_endpoints",
  {
    id: text("id").primaryKey(),
    /** The owner's personal workspace: endpoints belong to a user. */
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    project: text("project"),
    mode: text("mode", { enum: ["agent", "plan", "goal"] })
      .notNull()
      .default("agent"),
    /** Offer ChatGPT's `search` and `fetch` tools on this endpoint. */
    searchFetch: boolean("search_fetch").notNull().default(false),
    /** Lazy tools: upstream tools are found with find_tools and called with call_tool, not listed. */
    lazyTools: boolean("lazy_tools").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("mcp_endpoints_user_idx").on(t.userId)],
);

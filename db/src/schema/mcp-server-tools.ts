import { boolean, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { mcpServers } from "./mcp-servers";
import { workspaces } from "./workspaces";

/** A tool's definition as the user approved it, kept so the console can show what changed. */
export interface PinnedDefinition {
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
  /** The MCP Apps view it linked to, when it linked one. */
  ui?: { resourceUri: string; visibility?: ("model" | "app")[] };
}

/**
 * The cached tool list of a remote server (so a second session costs nothing upstream), with the
 * user's settings per tool: enabled, the actions allowed in plan mode, and the pinned definition
 * hash. A tool whose current hash differs from its approved one is withheld.
 */
export const mcpServerTools = pgTable(
  "mcp_server_tools",
  {
    serverId: text("server_id")
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** The upstream's name. */
    name: text("name").notNull(),
    /** The name clients see at /mcp: `<slug>_<tool>`, within 48 characters. */
    exposedName: text("exposed_name").notNull(),
    position: integer("position").notNull(),
    title: text("title"),
    description: text("description").notNull().default(""),
    inputSchema: jsonb("input_schema").$type<Record<string, unknown>>().notNull(),
    annotations: jsonb("annotations").$type<Record<string, unknown>>().notNull().default({}),
    /** The upstream's output schema, listed to clients as given (not part of the pin). */
    outputSchema: jsonb("output_schema").$type<Record<string, unknown>>(),
    /**
     * The MCP Apps view the tool links to (`_meta.ui`: a `ui://` URI and who may call it), listed to
     * clients that negotiate Apps; part of the pin when present.
     */
    ui: jsonb("ui").$type<{ resourceUri: string; visibility?: ("model" | "app")[] }>(),
    /** SHA-256 of the name, description and input schema (and view link) as the upstream gives them now. */
    hash: text("hash").notNull(),
    approvedHash: text("approved_hash"),
    approvedDefinition: jsonb("approved_definition").$type<PinnedDefinition>(),
    enabled: boolean("enabled").notNull().default(true),
    planSafeActions: text("plan_safe_actions").array().notNull().default([]),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.serverId, t.name] }),
    uniqueIndex("mcp_server_tools_workspace_exposed_key").on(t.workspaceId, t.exposedName),
  ],
);

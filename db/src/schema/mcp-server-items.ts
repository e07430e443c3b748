import { boolean, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { mcpServers } from "./mcp-servers";
import { workspaces } from "./workspaces";

/**
 * What a server offers besides tools, each pinned on its own: a resource, a resource template, a
 * prompt, or a skill (Skills extension: key its SKILL.md URI, definition its `skills/list` entry).
 */
export type ServerItemKind = "resource" | "template" | "prompt" | "skill";

/**
 * The resources, resource templates and prompts a remote server offered when it was last listed,
 * with the user's settings for each: enabled, safe in plan mode, and the pinned definition hash.
 * An item that is new, or whose current hash differs from its approved one, is withheld (not
 * listed, not read, not completed) until the user reviews it, as tools are.
 */
export const mcpServerItems = pgTable(
  "mcp_server_items",
  {
    serverId: text("server_id")
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind").$type<ServerItemKind>().notNull(),
    /** What identifies it upstream: a resource's URI, a template's URI template, a prompt's name. */
    key: text("key").notNull(),
    /**
     * What identifies it at /mcp, beside every other server's: a prompt's `<slug>_<name>`, a
     * resource's or template's URI under the server's prefix. Looked up, never parsed back.
     */
    exposedKey: text("exposed_key").notNull(),
    position: integer("position").notNull(),
    /** The definition as the upstream gave it now (name, title, description, mimeType, arguments…). */
    definition: jsonb("definition").$type<Record<string, unknown>>().notNull(),
    /** SHA-256 of the pinned part of the definition. */
    hash: text("hash").notNull(),
    approvedHash: text("approved_hash"),
    /** The definition as approved, kept so the console can show what changed. */
    approvedDefinition: jsonb("approved_definition").$type<Record<string, unknown>>(),
    /**
     * Why it is withheld although approved: what Loadout found when it was last used (an upstream
     * skill's file whose bytes did not match its approved manifest). Cleared when the server's
     * items are listed again (Test).
     */
    problem: text("problem"),
    enabled: boolean("enabled").notNull().default(true),
    /** Offered in plan and goal modes too (reading is not writing, but the user decides what an agent may read there). */
    planSafe: boolean("plan_safe").notNull().default(false),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.serverId, t.kind, t.key] }),
    uniqueIndex("mcp_server_items_workspace_exposed_key").on(t.workspaceId, t.kind, t.exposedKey),
  ],
);

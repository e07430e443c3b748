import { boolean, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

/**
 * Remote MCP servers of a workspace. Header values are sealed (AES-256-GCM, with the id of the key
 * that sealed them) and never stored or returned in the clear.
 */
export const mcpServers = pgTable(
  "mcp_servers",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    label: text("label").notNull(),
    description: text("description").notNull().default(""),
    /** The URL as shown, audited and logged: secret query values and path segments masked. */
    url: text("url").notNull(),
    /** The real URL, sealed, when it differs from the shown one (it holds a secret). */
    urlSealed: text("url_sealed"),
    transport: text("transport", { enum: ["streamable-http", "sse"] }).notNull(),
    /** Header name → sealed value. */
    headers: jsonb("headers").$type<Record<string, string>>().notNull().default({}),
    /**
     * OAuth (Loadout is the client, PROTOCOLS.md §5.4): null when the server takes no sign-in;
     * `per-user` when each member connects their own account, `shared` when an admin connects one
     * for the team.
     */
    oauth: text("oauth", { enum: ["per-user", "shared"] }),
    /** The authorization server discovery found (its issuer), kept to tell when it changes. */
    oauthIssuer: text("oauth_issuer"),
    /** The authorization server's metadata as last discovered (its endpoints), for refresh and revocation. */
    oauthMetadata: jsonb("oauth_metadata").$type<Record<string, unknown>>(),
    /** The scope the upstream asked for (its challenge, else its protected-resource metadata). */
    oauthScope: text("oauth_scope"),
    /** A client the user registered at the issuer themselves and pasted (the first registration choice). */
    oauthClientId: text("oauth_client_id"),
    /** That client's secret, sealed like header values; null for a public client. */
    oauthClientSecret: text("oauth_client_secret"),
    enabled: boolean("enabled").notNull().default(true),
    scopeMode: text("scope_mode", { enum: ["global", "projects"] })
      .notNull()
      .default("global"),
    scopeProjects: text("scope_projects").array().notNull().default([]),
    callTimeoutMs: integer("call_timeout_ms").notNull().default(60_000),
    status: text("status", { enum: ["unknown", "ok", "failed"] })
      .notNull()
      .default("unknown"),
    lastError: text("last_error"),
    checkedAt: timestamp("checked_at", { withTimezone: true }),
    /** When the tool list was last fetched; null until the first use, and again after the server's identity changed. */
    toolsFetchedAt: timestamp("tools_fetched_at", { withTimezone: true }),
    /** The upstream offered more tools than the 64 kept. */
    toolsTruncated: boolean("tools_truncated").notNull().default(false),
    /** Bumped when what the server is (URL, transport, headers) changes: connections keyed by it are dropped. */
    generation: integer("generation").notNull().default(1),
    revision: integer("revision").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("mcp_servers_workspace_slug_key").on(t.workspaceId, t.slug)],
);

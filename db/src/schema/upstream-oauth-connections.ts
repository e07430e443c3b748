import { index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { mcpServers } from "./mcp-servers";
import { users } from "./users";
import { workspaces } from "./workspaces";

/**
 * Tokens an upstream's authorization server issued to Loadout: one per server and owner, the
 * owner being a user (per-user credentials) or `shared` (the team's connection, set by an admin).
 * Tokens are sealed like header values and never leave the server side.
 */
export const upstreamOAuthConnections = pgTable(
  "upstream_oauth_connections",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    serverId: text("server_id")
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    /** `shared`, or the id of the user whose account this is. */
    owner: text("owner").notNull(),
    /** The owner as a user (null for a shared connection), so that removing a user removes theirs. */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    /** Who signed in (for a shared connection, the admin). */
    connectedBy: text("connected_by").notNull(),
    issuer: text("issuer").notNull(),
    registrationId: text("registration_id"),
    clientId: text("client_id").notNull(),
    /** The resource indicator (RFC 8707) the tokens were asked for, sent again on refresh. */
    resource: text("resource").notNull(),
    accessToken: text("access_token").notNull(),
    refreshToken: text("refresh_token"),
    expiresAt: timestamp("expires_at", { withTimezone: true }),
    /** The scopes the authorization server granted (space-separated). */
    scope: text("scope"),
    status: text("status", { enum: ["connected", "needs_sign_in"] }).notNull(),
    lastError: text("last_error"),
    /** A scope the upstream challenged for (403 insufficient_scope): the next Connect asks for it. */
    stepUpScope: text("step_up_scope"),
    /** Bumped at every token change: upstream sessions are keyed by it, so none outlives its token. */
    version: integer("version").notNull().default(1),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("upstream_oauth_connections_owner_key").on(t.serverId, t.owner),
    index("upstream_oauth_connections_workspace_idx").on(t.workspaceId),
  ],
);

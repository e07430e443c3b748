import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { mcpServers } from "./mcp-servers";
import { users } from "./users";
import { workspaces } from "./workspaces";

/**
 * Sign-ins to an upstream in progress: one per Connect, bound to the user and the server, single
 * use (deleted when the callback takes it) and short-lived. The `state` is kept as a hash; the
 * PKCE verifier is sealed.
 */
export const upstreamOAuthStates = pgTable(
  "upstream_oauth_states",
  {
    id: text("id").primaryKey(),
    stateHash: text("state_hash").notNull(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    serverId: text("server_id")
      .notNull()
      .references(() => mcpServers.id, { onDelete: "cascade" }),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** The team's connection (an admin connecting for everyone) rather than the user's own. */
    shared: boolean("shared").notNull(),
    /** The server's generation when the sign-in began: a server changed since is not connected. */
    generation: integer("generation").notNull(),
    issuer: text("issuer").notNull(),
    registrationId: text("registration_id"),
    clientId: text("client_id").notNull(),
    verifier: text("verifier").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    resource: text("resource").notNull(),
    scope: text("scope"),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("upstream_oauth_states_hash_key").on(t.stateHash),
    index("upstream_oauth_states_server_idx").on(t.serverId),
  ],
);

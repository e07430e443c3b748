import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { oauthClients } from "./oauth-clients";
import { users } from "./users";
import { workspaces } from "./workspaces";

/**
 * A user's consent to one OAuth client for one resource (a Loadout MCP URL): the "connected
 * app" of the console. Its tokens live in `oauth_tokens`; revoking the grant ends them all.
 */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Narrows the grant to one workspace; null reaches every workspace of the user. */
    workspaceId: text("workspace_id").references(() => workspaces.id, { onDelete: "cascade" }),
    clientRef: text("client_ref")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    /** The MCP URL the tokens are audience-bound to. */
    resource: text("resource").notNull(),
    scopes: text("scopes").array().notNull(),
    /** Pins chosen on the consent page; null leaves them to the request, as for an API token. */
    project: text("project"),
    mode: text("mode", { enum: ["agent", "plan", "goal"] }),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
    /** Why: `user`, `client` (RFC 7009), `code_reuse`, `refresh_reuse`. */
    revokedReason: text("revoked_reason"),
  },
  (t) => [index("oauth_grants_user_idx").on(t.userId)],
);

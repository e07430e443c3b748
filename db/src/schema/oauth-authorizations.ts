import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { oauthClients } from "./oauth-clients";
import { oauthGrants } from "./oauth-grants";
import { users } from "./users";
import { workspaces } from "./workspaces";

/**
 * One authorization request, from `/oauth/authorize` to the code's redemption: validated and
 * stored before the user signs in (the consent page names it by id), then approved with the
 * user's choices, which issues a single-use code (only its SHA-256 is kept).
 */
export const oauthAuthorizations = pgTable(
  "oauth_authorizations",
  {
    id: text("id").primaryKey(),
    clientRef: text("client_ref")
      .notNull()
      .references(() => oauthClients.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    state: text("state").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    scopes: text("scopes").array().notNull(),
    resource: text("resource").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** The request must be decided before this. */
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** Set on approval: who consented, and what they chose. */
    userId: text("user_id").references(() => users.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id").references(() => workspaces.id, { onDelete: "cascade" }),
    project: text("project"),
    mode: text("mode", { enum: ["agent", "plan", "goal"] }),
    decidedAt: timestamp("decided_at", { withTimezone: true }),
    codeHash: text("code_hash"),
    codeExpiresAt: timestamp("code_expires_at", { withTimezone: true }),
    codeUsedAt: timestamp("code_used_at", { withTimezone: true }),
    /** The grant the code was redeemed for: revoked if the code is presented again. */
    grantId: text("grant_id").references(() => oauthGrants.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("oauth_authorizations_code_key").on(t.codeHash),
    index("oauth_authorizations_expires_idx").on(t.expiresAt),
  ],
);

import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { ROLES } from "./memberships";
import { workspaces } from "./workspaces";

/**
 * Invitations to a team: a single-use link that expires. Only the SHA-256 of the link's secret
 * is stored, as for API tokens; the link is shown once, to the member who creates it.
 */
export const workspaceInvites = pgTable(
  "workspace_invites",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    /** Lowercased and trimmed; the account that accepts must have this email. */
    email: text("email").notNull(),
    role: text("role", { enum: ROLES }).notNull(),
    secretHash: text("secret_hash").notNull(),
    invitedBy: text("invited_by").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** Set once, by accept, decline or revoke: an invite is used at most once. */
    settledAt: timestamp("settled_at", { withTimezone: true }),
    settlement: text("settlement", { enum: ["accepted", "declined", "revoked"] }),
    settledBy: text("settled_by"),
  },
  (t) => [
    uniqueIndex("workspace_invites_secret_key").on(t.secretHash),
    index("workspace_invites_workspace_idx").on(t.workspaceId, t.createdAt),
  ],
);

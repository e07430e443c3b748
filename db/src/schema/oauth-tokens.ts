import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { oauthGrants } from "./oauth-grants";

/** Access and refresh tokens of a grant; only their SHA-256 is stored. */
export const oauthTokens = pgTable(
  "oauth_tokens",
  {
    id: text("id").primaryKey(),
    grantId: text("grant_id")
      .notNull()
      .references(() => oauthGrants.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: ["access", "refresh"] }).notNull(),
    secretHash: text("secret_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
    /** Refresh tokens: rotated (used once). Presenting a used one revokes the grant. */
    usedAt: timestamp("used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("oauth_tokens_secret_key").on(t.secretHash), index("oauth_tokens_grant_idx").on(t.grantId)],
);

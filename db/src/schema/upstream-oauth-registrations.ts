import { pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Loadout's own client identity at an upstream's authorization server, kept per issuer (and the
 * callback it was made for): a client ID metadata document, or a dynamic registration (RFC 7591).
 * Not tenant data: it reaches nothing until a user signs in; a secret the server gave is sealed.
 */
export const upstreamOAuthRegistrations = pgTable(
  "upstream_oauth_registrations",
  {
    id: text("id").primaryKey(),
    issuer: text("issuer").notNull(),
    redirectUri: text("redirect_uri").notNull(),
    kind: text("kind", { enum: ["metadata-document", "dynamic"] }).notNull(),
    clientId: text("client_id").notNull(),
    clientSecret: text("client_secret"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("upstream_oauth_registrations_issuer_key").on(t.issuer, t.redirectUri)],
);

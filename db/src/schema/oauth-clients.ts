import { pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * OAuth clients of Loadout's authorization server: registered dynamically (RFC 7591), or known
 * by a client ID metadata document (an https `client_id` URL, fetched and cached). Clients are
 * not tenant data: registration is anonymous, and a client reaches nothing until a user consents.
 */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    id: text("id").primaryKey(),
    /** What the client sends as `client_id`: `ocl_…` for registered clients, the document's URL otherwise. */
    clientId: text("client_id").notNull(),
    kind: text("kind", { enum: ["dynamic", "metadata"] }).notNull(),
    name: text("name").notNull(),
    clientUri: text("client_uri"),
    logoUri: text("logo_uri"),
    redirectUris: text("redirect_uris").array().notNull(),
    applicationType: text("application_type", { enum: ["web", "native"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /** Metadata documents: when the cached copy must be fetched again (per its HTTP caching headers). */
    expiresAt: timestamp("expires_at", { withTimezone: true }),
  },
  (t) => [uniqueIndex("oauth_clients_client_id_key").on(t.clientId)],
);

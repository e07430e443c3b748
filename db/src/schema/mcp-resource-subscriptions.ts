import { index, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * The resources a 2025-era client session subscribed to (`resources/subscribe`), by session:
 * Loadout serves those clients statelessly, so the subscription is kept here, where the instance
 * holding the session's GET stream finds it, whichever instance took the request. `session_key`
 * is a digest of the session id and the credentials that subscribed (never the id itself). Each
 * insert and delete notifies `sub:<session_key>` (0023), so the stream's holder reads them again,
 * and the session's counter in cache_stamps goes with its last row (0024); rows are refreshed each
 * time a stream reads them and let go a week after the last
 * (api/src/services/mcp/legacy-subscriptions.ts).
 */
export const mcpResourceSubscriptions = pgTable(
  "mcp_resource_subscriptions",
  {
    sessionKey: text("session_key").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    uri: text("uri").notNull(),
    seenAt: timestamp("seen_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.sessionKey, t.uri] }),
    index("mcp_resource_subscriptions_user").on(t.userId, t.seenAt),
  ],
);

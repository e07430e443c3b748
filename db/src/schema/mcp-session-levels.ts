import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { users } from "./users";

/**
 * The log level a 2025-era client session set (`logging/setLevel`), by session: Loadout serves those
 * clients statelessly and shares an upstream's session between them, so the level is kept here
 * and applied by Loadout to the upstream's log messages on that session's calls, whichever
 * instance serves them. `session_key` is the digest of the session id with the credentials that
 * set it, as for resource subscriptions (never the id itself). Read only when a call's upstream
 * sends a log message; rows not set again for a month are let go when the user next sets one
 * (api/src/services/mcp/legacy-levels.ts).
 */
export const mcpSessionLevels = pgTable(
  "mcp_session_levels",
  {
    sessionKey: text("session_key").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    level: text("level").notNull(),
    setAt: timestamp("set_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("mcp_session_levels_user").on(t.userId, t.setAt)],
);

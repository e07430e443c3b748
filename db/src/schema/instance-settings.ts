import { pgTable, text, timestamp } from "drizzle-orm/pg-core";

/** Instance-wide key/value settings, such as the hash of the one-time setup link's secret. */
export const instanceSettings = pgTable("instance_settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

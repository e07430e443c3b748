import { pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    /** Lowercased and trimmed at the edge; unique. */
    email: text("email").notNull(),
    name: text("name").notNull().default(""),
    /** `scrypt$<params>$<salt>$<hash>`: the scheme and its parameters travel with each hash. */
    passwordHash: text("password_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("users_email_key").on(t.email)],
);

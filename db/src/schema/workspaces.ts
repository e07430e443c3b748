import { integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

export const workspaces = pgTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    kind: text("kind", { enum: ["personal", "team"] }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    /**
     * Bumped by every change to the workspace's servers and their tools, so a cached catalog of
     * upstream tools is known stale by one small read.
     */
    catalogVersion: integer("catalog_version").notNull().default(0),
  },
  (t) => [uniqueIndex("workspaces_slug_key").on(t.slug)],
);

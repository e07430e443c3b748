import { integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { bytea } from "./bytea";
import { workspaces } from "./workspaces";

/**
 * File contents, stored once per workspace by digest (`sha256:<hex>` of the exact bytes), so
 * history and unchanged files cost nothing twice. Per workspace, never shared across tenants.
 */
export const skillBlobs = pgTable(
  "skill_blobs",
  {
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    digest: text("digest").notNull(),
    size: integer("size").notNull(),
    content: bytea("content").notNull(),
  },
  (t) => [primaryKey({ columns: [t.workspaceId, t.digest] })],
);

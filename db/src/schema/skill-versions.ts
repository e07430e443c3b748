import { index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { skills } from "./skills";
import { workspaces } from "./workspaces";

/** Every content version of a skill, the current one included: history is never rewritten. */
export const skillVersions = pgTable(
  "skill_versions",
  {
    id: text("id").primaryKey(),
    skillId: text("skill_id")
      .notNull()
      .references(() => skills.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    /** create, import, update or restore (with the version restored in `restoredFrom`). */
    action: text("action").notNull(),
    restoredFrom: integer("restored_from"),
    description: text("description").notNull(),
    fileCount: integer("file_count").notNull(),
    totalBytes: integer("total_bytes").notNull(),
    actorUserId: text("actor_user_id"),
    actorTokenId: text("actor_token_id"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex("skill_versions_skill_version_key").on(t.skillId, t.version)],
);

/** The files of a version: a manifest pointing at content-addressed blobs. */
export const skillVersionFiles = pgTable(
  "skill_version_files",
  {
    versionId: text("version_id")
      .notNull()
      .references(() => skillVersions.id, { onDelete: "cascade" }),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    path: text("path").notNull(),
    size: integer("size").notNull(),
    digest: text("digest").notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.versionId, t.path] }),
    index("skill_version_files_digest_idx").on(t.workspaceId, t.digest),
  ],
);

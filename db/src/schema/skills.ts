import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";
import { workspaces } from "./workspaces";

export const SKILL_KINDS = ["skill", "persona"] as const;
export type SkillKind = (typeof SKILL_KINDS)[number];

/**
 * Skills and personas: the current state of each. `enabled` and the scope are stored apart
 * (the console's off / projects / global is derived), `revision` counts every write for
 * optimistic concurrency, and `version` counts content versions (kept in skill_versions).
 */
export const skills = pgTable(
  "skills",
  {
    id: text("id").primaryKey(),
    workspaceId: text("workspace_id")
      .notNull()
      .references(() => workspaces.id, { onDelete: "cascade" }),
    kind: text("kind", { enum: SKILL_KINDS }).notNull(),
    name: text("name").notNull(),
    description: text("description").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    scopeMode: text("scope_mode", { enum: ["global", "projects"] })
      .notNull()
      .default("global"),
    scopeProjects: text("scope_projects").array().notNull().default([]),
    revision: integer("revision").notNull().default(1),
    version: integer("version").notNull().default(1),
    fileCount: integer("file_count").notNull(),
    totalBytes: integer("total_bytes").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex("skills_workspace_name_key").on(t.workspaceId, t.name),
    index("skills_workspace_kind_idx").on(t.workspaceId, t.kind, t.name),
  ],
);

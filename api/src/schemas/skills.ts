import { z } from "@hono/zod-openapi";
import { SKILL_KINDS } from "@loadout/db";
import { pathProblem } from "../domain/skills/paths";
import { FileText, Line, Text, Timestamp, WorkspaceParam } from "./common";

export const SkillKind = z.enum(SKILL_KINDS).openapi({ description: "A skill (SKILL.md) or a persona (PERSONA.md)." });

export const SkillName = Line({ error: "name is required" })
  .min(1, "name is required")
  .max(64, "name must have at most 64 characters")
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, "name must be lowercase letters, digits and single hyphens, like code-review")
  .openapi({ example: "code-review" });

const codePoints = (s: string) => [...s].length;
export const Description = Text({ error: "description is required" })
  .refine((s) => s.trim().length > 0, "description is required: say what the skill does and when to use it")
  .refine((s) => codePoints(s) <= 1024, "description must have at most 1024 characters")
  .openapi({ example: "Reviews a diff for bugs, security issues and style; use when asked to review code." });

export const Instructions = Text({ error: "instructions must be Markdown text" }).openapi({
  example: "# Code review\n\nRead the diff…",
});

export const ScopeSchema = z
  .strictObject({
    mode: z.enum(["global", "projects"], { error: 'scope.mode must be "global" or "projects"' }),
    projects: z
      .array(Line().min(1).max(1024), { error: "scope.projects must be a list of paths" })
      .max(100, "at most 100 projects"),
  })
  .openapi("Scope", { example: { mode: "projects", projects: ["/home/ada/code/mono"] } });

export const FileInput = z
  .strictObject({
    content: FileText().optional().openapi({ description: "The file as UTF-8 text." }),
    contentBase64: Line().optional().openapi({ description: "The file's bytes, base64-encoded (binary files)." }),
  })
  .refine(
    (f) => (f.content === undefined) !== (f.contentBase64 === undefined),
    "give exactly one of content or contentBase64",
  )
  .openapi("FileInput");
export type FileInput = z.infer<typeof FileInput>;

/**
 * A file's path in a body. Its rules (domain/skills/paths.ts) run when the content is prepared,
 * before anything is stored or queried, where the problem can name the file rather than
 * `files.0.path`, with the very messages an archive's entries get.
 */
const FilePath = z.string().max(1024).openapi({ example: "references/checklist.md" });

/** A file's path in a query, read before any content is prepared: the same rule, here. */
const QueryFilePath = FilePath.check((ctx) => {
  const problem = pathProblem(ctx.value);
  if (problem) ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
});

export const CreateSkillInput = z
  .strictObject({
    kind: SkillKind.optional(),
    name: SkillName,
    description: Description,
    instructions: Instructions,
    files: z
      .array(z.strictObject({ path: FilePath, content: FileText().optional(), contentBase64: Line().optional() }))
      .max(512, "a skill holds at most 512 files")
      .optional(),
    enabled: z.boolean().optional(),
    scope: ScopeSchema.optional(),
  })
  .openapi("CreateSkillInput");
export type CreateSkillInput = z.infer<typeof CreateSkillInput>;

export const ImportSkillInput = z
  .strictObject({
    kind: SkillKind.optional(),
    text: Text({ error: "text is required: paste the whole SKILL.md, frontmatter included" }).min(1, "text is empty"),
    enabled: z.boolean().optional(),
    scope: ScopeSchema.optional(),
  })
  .openapi("ImportSkillInput");
export type ImportSkillInput = z.infer<typeof ImportSkillInput>;

export const UpdateSkillInput = z
  .strictObject({
    revision: z.number({ error: "revision is required: send the revision you are editing" }).int().min(1),
    description: Description.optional(),
    instructions: Instructions.optional(),
    files: z
      .record(FilePath, FileInput.nullable())
      .optional()
      .openapi({ description: "Files to add or replace; a path mapped to null is removed." }),
    enabled: z.boolean().optional(),
    scope: ScopeSchema.optional(),
  })
  .openapi("UpdateSkillInput");
export type UpdateSkillInput = z.infer<typeof UpdateSkillInput>;

export const RestoreInput = z.strictObject({ revision: z.number().int().min(1) }).openapi("RestoreInput");

export const ListSkillsQuery = z.object({
  kind: SkillKind.optional(),
  state: z.enum(["off", "projects", "global"]).optional(),
  project: Line().min(1).max(1024).optional().openapi({ description: "Only items active in this project path." }),
  q: Line().max(200).optional().openapi({ description: "Search names and descriptions." }),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  cursor: Line().max(2048).optional(),
});
export type ListSkillsQuery = z.infer<typeof ListSkillsQuery>;

export const SkillParams = WorkspaceParam.extend({
  name: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "name", in: "path" }, example: "code-review" }),
});
export const VersionParams = SkillParams.extend({
  version: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: "version", in: "path" }, example: 1 }),
});
export const FileQuery = z.object({ path: QueryFilePath.openapi({ param: { name: "path", in: "query" } }) });
export const RevisionQuery = z.object({
  revision: z.coerce
    .number()
    .int()
    .min(1)
    .openapi({ param: { name: "revision", in: "query" } }),
});

export const SkillSummary = z
  .object({
    id: z.string(),
    kind: SkillKind,
    name: z.string(),
    description: z.string(),
    enabled: z.boolean(),
    scope: ScopeSchema,
    state: z.enum(["off", "projects", "global"]),
    revision: z.number().int(),
    version: z.number().int(),
    fileCount: z.number().int(),
    totalBytes: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("SkillSummary");
export type SkillSummary = z.infer<typeof SkillSummary>;

export const SkillFile = z
  .object({ path: z.string(), size: z.number().int(), digest: z.string() })
  .openapi("SkillFile");

export const SkillDetail = SkillSummary.extend({
  document: z.string().openapi({ description: "The whole SKILL.md / PERSONA.md as stored." }),
  frontmatter: z.string().openapi({ description: "The YAML frontmatter, verbatim." }),
  metadata: z.record(z.string(), z.unknown()),
  body: z.string(),
  files: z.array(SkillFile),
}).openapi("SkillDetail");
export type SkillDetail = z.infer<typeof SkillDetail>;

export const SkillList = z
  .object({ items: z.array(SkillSummary), nextCursor: z.string().nullable() })
  .openapi("SkillList");

export const VersionSummary = z
  .object({
    version: z.number().int(),
    action: z.string(),
    restoredFrom: z.number().int().nullable(),
    createdAt: Timestamp,
    actor: z.object({ id: z.string(), email: z.string() }).nullable(),
    description: z.string(),
    fileCount: z.number().int(),
    totalBytes: z.number().int(),
  })
  .openapi("SkillVersionSummary");
export type VersionSummary = z.infer<typeof VersionSummary>;

export const VersionDetail = VersionSummary.extend({
  document: z.string(),
  frontmatter: z.string(),
  body: z.string(),
  files: z.array(SkillFile),
}).openapi("SkillVersion");
export type VersionDetail = z.infer<typeof VersionDetail>;

export const ProjectSchema = z
  .object({ id: z.string(), path: z.string(), source: z.enum(["user", "session"]), createdAt: Timestamp })
  .openapi("Project");
export const AddProjectInput = z
  .strictObject({ path: Line().trim().min(1, "path is required").max(1024) })
  .openapi("AddProjectInput");
export const ProjectParams = WorkspaceParam.extend({
  id: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

// Shapes of the skills REST API (docs/skills-api.md), as the console reads them.

export type SkillKind = "skill" | "persona";
export type SkillState = "off" | "projects" | "global";
export type ScopeMode = "global" | "projects";
export type SkillScope = { mode: ScopeMode; projects: string[] };

export type SkillSummary = {
  id: string;
  kind: SkillKind;
  name: string;
  description: string;
  enabled: boolean;
  scope: SkillScope;
  state: SkillState;
  revision: number;
  version: number;
  fileCount: number;
  totalBytes: number;
  createdAt: string;
  updatedAt: string;
};

export type SkillFile = { path: string; size: number; digest: string };

export type SkillDetail = SkillSummary & {
  document: string;
  frontmatter: string;
  metadata: Record<string, unknown>;
  body: string;
  files: SkillFile[];
};

export type SkillList = { items: SkillSummary[]; nextCursor: string | null };

export type FileInput = { content: string } | { contentBase64: string };

export type CreateSkillInput = {
  kind: SkillKind;
  name: string;
  description: string;
  instructions: string;
  files?: ({ path: string } & FileInput)[];
};

export type UpdateSkillInput = {
  revision: number;
  description?: string;
  instructions?: string;
  files?: Record<string, FileInput | null>;
  enabled?: boolean;
  scope?: SkillScope;
};

export type VersionActor = { id: string; email: string };

export type SkillVersionSummary = {
  version: number;
  action: string;
  // The version a restore brought back; null for other actions.
  restoredFrom: number | null;
  createdAt: string;
  actor: VersionActor | null;
  description: string;
  fileCount: number;
  totalBytes: number;
};

export type SkillVersionList = { versions: SkillVersionSummary[] };

export type SkillVersion = {
  version: number;
  action: string;
  createdAt: string;
  document: string;
  frontmatter: string;
  body: string;
  description: string;
  files: SkillFile[];
};

export type Project = { id: string; path: string; source: "user" | "session"; createdAt: string };

export type ProjectList = { projects: Project[] };

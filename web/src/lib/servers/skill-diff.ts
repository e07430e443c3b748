// An upstream skill's change since it was approved, as the console shows it for review: the
// frontmatter fields that changed, and the files added, removed or changed (digest or size). The
// pin covers exactly these (see api/src/domain/servers/upstream-skills.ts, pinnedSkill).

interface ManifestFile {
  uri: string;
  digest: string;
  size: number;
}

export interface SkillChange {
  frontmatter: { field: string; before: string; after: string }[];
  added: string[];
  removed: string[];
  changed: string[];
}

function filesOf(definition: Record<string, unknown> | null): Map<string, ManifestFile> {
  const resources = Array.isArray(definition?.resources) ? (definition.resources as ManifestFile[]) : [];
  return new Map(resources.filter((r) => typeof r?.uri === "string").map((r) => [r.uri, r]));
}

const shown = (value: unknown) =>
  value === undefined ? "(none)" : typeof value === "string" ? value : JSON.stringify(value);

/** What changed from the approved definition to the current one. */
export function skillChange(approved: Record<string, unknown> | null, current: Record<string, unknown>): SkillChange {
  const before = (approved?.frontmatter ?? {}) as Record<string, unknown>;
  const after = (current.frontmatter ?? {}) as Record<string, unknown>;
  const fields = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const was = filesOf(approved);
  const now = filesOf(current);
  return {
    frontmatter: fields
      .filter((f) => JSON.stringify(before[f]) !== JSON.stringify(after[f]))
      .map((field) => ({ field, before: shown(before[field]), after: shown(after[field]) })),
    added: [...now.keys()].filter((uri) => !was.has(uri)),
    removed: [...was.keys()].filter((uri) => !now.has(uri)),
    changed: [...now.values()]
      .filter((f) => {
        const old = was.get(f.uri);
        return old !== undefined && (old.digest !== f.digest || old.size !== f.size);
      })
      .map((f) => f.uri),
  };
}

/** A skill's manifest in a line: how many files, how many bytes. */
export function manifestSummary(definition: Record<string, unknown>): string {
  const files = [...filesOf(definition).values()];
  const bytes = files.reduce((n, f) => n + (Number.isFinite(f.size) ? f.size : 0), 0);
  return `${files.length} ${files.length === 1 ? "file" : "files"}, ${bytes.toLocaleString("en")} bytes`;
}

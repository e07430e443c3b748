import type { SkillFile } from "./types";

export type FileChange = {
  path: string;
  change: "added" | "removed" | "changed";
  before?: SkillFile;
  after?: SkillFile;
};

// Which files differ between two versions, by digest; the SKILL.md / PERSONA.md has its own line diff.
export function fileChanges(before: SkillFile[], after: SkillFile[], documentName: string): FileChange[] {
  const old = new Map(before.filter((f) => f.path !== documentName).map((f) => [f.path, f]));
  const now = new Map(after.filter((f) => f.path !== documentName).map((f) => [f.path, f]));
  const changes: FileChange[] = [];
  for (const [path, file] of now) {
    const previous = old.get(path);
    if (!previous) changes.push({ path, change: "added", after: file });
    else if (previous.digest !== file.digest) changes.push({ path, change: "changed", before: previous, after: file });
  }
  for (const [path, file] of old) {
    if (!now.has(path)) changes.push({ path, change: "removed", before: file });
  }
  return changes.sort((a, b) => a.path.localeCompare(b.path));
}

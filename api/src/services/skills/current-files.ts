import { type Database, skillBlobs, skills, skillVersionFiles, skillVersions } from "@loadout/db";
import { and, eq, inArray, or } from "drizzle-orm";
import type { ManifestEntry } from "./lookup";

/** The files of each skill's current version, by skill id, in path order. */
export async function currentFiles(db: Database, skillIds: readonly string[]): Promise<Map<string, ManifestEntry[]>> {
  const byItem = new Map<string, ManifestEntry[]>();
  if (skillIds.length === 0) return byItem;
  const files = await db
    .select({
      skillId: skillVersions.skillId,
      path: skillVersionFiles.path,
      size: skillVersionFiles.size,
      digest: skillVersionFiles.digest,
    })
    .from(skillVersions)
    .innerJoin(skills, and(eq(skills.id, skillVersions.skillId), eq(skills.version, skillVersions.version)))
    .innerJoin(skillVersionFiles, eq(skillVersionFiles.versionId, skillVersions.id))
    .where(inArray(skillVersions.skillId, [...skillIds]));
  for (const { skillId, ...file } of files) byItem.set(skillId, [...(byItem.get(skillId) ?? []), file]);
  for (const manifest of byItem.values()) manifest.sort((a, b) => (a.path < b.path ? -1 : 1));
  return byItem;
}

/** The text of these blobs (UTF-8), keyed `${workspaceId} ${digest}`; one query for all. */
export async function blobTexts(
  db: Database,
  blobs: readonly { workspaceId: string; digest: string }[],
): Promise<Map<string, string>> {
  if (blobs.length === 0) return new Map();
  const rows = await db
    .select({ workspaceId: skillBlobs.workspaceId, digest: skillBlobs.digest, content: skillBlobs.content })
    .from(skillBlobs)
    .where(or(...blobs.map((d) => and(eq(skillBlobs.workspaceId, d.workspaceId), eq(skillBlobs.digest, d.digest)))));
  const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
  return new Map(rows.map((b) => [`${b.workspaceId} ${b.digest}`, decoder.decode(b.content)]));
}

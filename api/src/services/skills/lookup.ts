import { type Database, skillBlobs, skills, skillVersionFiles, skillVersions } from "@loadout/db";
import { and, asc, eq } from "drizzle-orm";
import { notFound } from "../../errors";

export type SkillRow = typeof skills.$inferSelect;

/** One item by name in one workspace; anything else is "not found", whoever asks. */
export async function findSkill(
  db: Database,
  workspaceId: string,
  name: string,
  options: { forUpdate?: boolean } = {},
): Promise<SkillRow> {
  const query = db
    .select()
    .from(skills)
    .where(and(eq(skills.workspaceId, workspaceId), eq(skills.name, name)))
    .limit(1);
  const [row] = options.forUpdate ? await query.for("update") : await query;
  if (!row) throw notFound(`Skill or persona "${name}"`);
  return row;
}

export interface ManifestEntry {
  path: string;
  size: number;
  digest: string;
}

/** The files of one version of an item, sorted by path. */
export async function versionManifest(
  db: Database,
  workspaceId: string,
  skillId: string,
  version: number,
): Promise<{ versionId: string; files: ManifestEntry[] } | null> {
  const [row] = await db
    .select({ id: skillVersions.id })
    .from(skillVersions)
    .where(
      and(
        eq(skillVersions.workspaceId, workspaceId),
        eq(skillVersions.skillId, skillId),
        eq(skillVersions.version, version),
      ),
    )
    .limit(1);
  if (!row) return null;
  const files = await db
    .select({ path: skillVersionFiles.path, size: skillVersionFiles.size, digest: skillVersionFiles.digest })
    .from(skillVersionFiles)
    .where(and(eq(skillVersionFiles.workspaceId, workspaceId), eq(skillVersionFiles.versionId, row.id)))
    .orderBy(asc(skillVersionFiles.path));
  return { versionId: row.id, files };
}

export async function readBlob(db: Database, workspaceId: string, digest: string): Promise<Uint8Array> {
  const [row] = await db
    .select({ content: skillBlobs.content })
    .from(skillBlobs)
    .where(and(eq(skillBlobs.workspaceId, workspaceId), eq(skillBlobs.digest, digest)))
    .limit(1);
  if (!row) throw new Error(`blob ${digest} is missing from workspace ${workspaceId}`);
  return row.content;
}

import { type Database, skillBlobs, skills, skillVersionFiles, skillVersions } from "@loadout/db";
import { and, asc, eq, sql } from "drizzle-orm";
import { notFound } from "../../errors";
import type { ContentCache } from "../cache/hot";
import { prepared } from "../prepared";

export type SkillRow = typeof skills.$inferSelect;

/** One item by name in one workspace; anything else is "not found", whoever asks. */
export async function findSkill(
  db: Database,
  workspaceId: string,
  name: string,
  options: { forUpdate?: boolean } = {},
): Promise<SkillRow> {
  const [row] = options.forUpdate
    ? await db
        .select()
        .from(skills)
        .where(and(eq(skills.workspaceId, workspaceId), eq(skills.name, name)))
        .limit(1)
        .for("update")
    : await prepared(db, "skill_by_name", (d) =>
        d
          .select()
          .from(skills)
          .where(and(eq(skills.workspaceId, sql.placeholder("workspaceId")), eq(skills.name, sql.placeholder("name"))))
          .limit(1)
          .prepare("skill_by_name"),
      ).execute({ workspaceId, name });
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
  /** Versions never change: where given, a manifest read once is kept here. */
  content?: ContentCache<unknown>,
): Promise<{ versionId: string; files: ManifestEntry[] } | null> {
  const key = `manifest\u0000${workspaceId}\u0000${skillId}\u0000${version}`;
  const cached = content?.get(key) as { versionId: string; files: ManifestEntry[] } | undefined;
  if (cached) return cached;
  // One round trip, prepared: every skills get and skill:// read starts here.
  const rows = await prepared(db, "version_manifest", (d) =>
    d
      .select({
        versionId: skillVersions.id,
        path: skillVersionFiles.path,
        size: skillVersionFiles.size,
        digest: skillVersionFiles.digest,
      })
      .from(skillVersions)
      .innerJoin(skillVersionFiles, eq(skillVersionFiles.versionId, skillVersions.id))
      .where(
        and(
          eq(skillVersions.workspaceId, sql.placeholder("workspaceId")),
          eq(skillVersions.skillId, sql.placeholder("skillId")),
          eq(skillVersions.version, sql.placeholder("version")),
        ),
      )
      .orderBy(asc(skillVersionFiles.path))
      .prepare("version_manifest"),
  ).execute({ workspaceId, skillId, version });
  const first = rows[0];
  if (!first) return null;
  const manifest = {
    versionId: first.versionId,
    files: rows.map(({ path, size, digest }) => ({ path, size, digest })),
  };
  content?.set(key, manifest, 200 + rows.length * 200);
  return manifest;
}

/**
 * A version's files and the bytes of one of them, in one round trip: `skills get` and
 * `skill://` reads need exactly this.
 */
export async function manifestWithContent(
  db: Database,
  workspaceId: string,
  skillId: string,
  version: number,
  path: string,
  /** Versions and blobs never change: where given, what was read once is kept here. */
  cache?: ContentCache<unknown>,
): Promise<{ files: ManifestEntry[]; content: Uint8Array | null } | null> {
  const key = `manifest_with\u0000${workspaceId}\u0000${skillId}\u0000${version}\u0000${path}`;
  const cached = cache?.get(key) as { files: ManifestEntry[]; content: Uint8Array | null } | undefined;
  if (cached) return cached;
  const rows = await prepared(db, "manifest_with_content", (d) =>
    d
      .select({
        path: skillVersionFiles.path,
        size: skillVersionFiles.size,
        digest: skillVersionFiles.digest,
        content: skillBlobs.content,
      })
      .from(skillVersions)
      .innerJoin(skillVersionFiles, eq(skillVersionFiles.versionId, skillVersions.id))
      .leftJoin(
        skillBlobs,
        and(
          eq(skillBlobs.workspaceId, skillVersionFiles.workspaceId),
          eq(skillBlobs.digest, skillVersionFiles.digest),
          eq(skillVersionFiles.path, sql.placeholder("path")),
        ),
      )
      .where(
        and(
          eq(skillVersions.workspaceId, sql.placeholder("workspaceId")),
          eq(skillVersions.skillId, sql.placeholder("skillId")),
          eq(skillVersions.version, sql.placeholder("version")),
        ),
      )
      .orderBy(asc(skillVersionFiles.path))
      .prepare("manifest_with_content"),
  ).execute({ workspaceId, skillId, version, path });
  if (rows.length === 0) return null;
  const found = {
    files: rows.map(({ path: p, size, digest }) => ({ path: p, size, digest })),
    content: rows.find((r) => r.path === path)?.content ?? null,
  };
  cache?.set(key, found, (found.content?.byteLength ?? 0) + rows.length * 200);
  return found;
}

export async function readBlob(
  db: Database,
  workspaceId: string,
  digest: string,
  /** Blobs are addressed by their content: where given, one read once is kept here. */
  cache?: ContentCache<unknown>,
): Promise<Uint8Array> {
  const key = `blob\u0000${workspaceId}\u0000${digest}`;
  const cached = cache?.get(key) as Uint8Array | undefined;
  if (cached) return cached;
  const [row] = await prepared(db, "blob_by_digest", (d) =>
    d
      .select({ content: skillBlobs.content })
      .from(skillBlobs)
      .where(
        and(
          eq(skillBlobs.workspaceId, sql.placeholder("workspaceId")),
          eq(skillBlobs.digest, sql.placeholder("digest")),
        ),
      )
      .limit(1)
      .prepare("blob_by_digest"),
  ).execute({ workspaceId, digest });
  if (!row) throw new Error(`blob ${digest} is missing from workspace ${workspaceId}`);
  cache?.set(key, row.content, row.content.byteLength);
  return row.content;
}

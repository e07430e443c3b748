import type { Database } from "@loadout/db";
import { type FileChange, fileChange } from "../../domain/skills/changes";
import type { ContentCache } from "../cache/hot";
import { type ManifestEntry, readBlob, versionManifest } from "./lookup";

/** At most this many files' changes are reported; the rest are counted. */
const MAX_CHANGES = 32;

/**
 * What changed between two versions of an item, file by file (from = null: it was created):
 * each added, removed or changed file with a bounded unified diff of its text. Reads the two
 * manifests and only the blobs whose digests differ.
 */
export async function versionChanges(
  db: Database,
  workspaceId: string,
  skillId: string,
  from: number | null,
  to: number,
  cache?: ContentCache<unknown>,
): Promise<{ changes: FileChange[]; more: number }> {
  if (from === to) return { changes: [], more: 0 };
  const [before, after] = await Promise.all([
    from === null ? null : versionManifest(db, workspaceId, skillId, from, cache),
    versionManifest(db, workspaceId, skillId, to, cache),
  ]);
  const old = new Map((before?.files ?? []).map((f) => [f.path, f]));
  const next = new Map((after?.files ?? []).map((f) => [f.path, f]));
  const paths = [...new Set([...old.keys(), ...next.keys()])]
    .filter((path) => old.get(path)?.digest !== next.get(path)?.digest)
    .sort();
  const read = (entry: ManifestEntry | undefined) =>
    entry ? readBlob(db, workspaceId, entry.digest, cache) : Promise.resolve(null);
  const changes = await Promise.all(
    paths
      .slice(0, MAX_CHANGES)
      .map(async (path) => fileChange(path, await read(old.get(path)), await read(next.get(path)))),
  );
  return { changes, more: Math.max(0, paths.length - MAX_CHANGES) };
}

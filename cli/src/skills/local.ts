import { createHash } from "node:crypto";
import { lstat, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { CliError } from "../config";

export type ItemKind = "skill" | "persona";

/** A skill or persona folder on disk, read whole. */
export interface LocalItem {
  dir: string;
  /** The folder's name, which is the item's name. */
  name: string;
  kind: ItemKind;
  files: LocalFile[];
}

export interface LocalFile {
  /** Relative to the item's folder, with `/`. */
  path: string;
  bytes: Uint8Array;
  digest: string;
}

/** The digest the API gives each file: `sha256:` and the hex of its bytes (api domain/skills/digest.ts). */
export function fileDigest(bytes: Uint8Array): string {
  return `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
}

/** One digest for a whole item: its files' paths and digests, in path order. */
export function itemDigest(files: ReadonlyArray<{ path: string; digest: string }>): string {
  const lines = [...files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => `${f.path}\u0000${f.digest}\n`)
    .join("");
  return fileDigest(new TextEncoder().encode(lines));
}

/** Version-control and editor leftovers that are never part of a skill. */
const SKIPPED = /^(\.git|\.hg|\.svn|node_modules|\.DS_Store|Thumbs\.db|desktop\.ini)$/;

function kindOf(names: readonly string[]): ItemKind | null {
  if (names.includes("SKILL.md")) return "skill";
  if (names.includes("PERSONA.md")) return "persona";
  return null;
}

/**
 * The items under `root`: `root` itself when it holds a SKILL.md (or PERSONA.md), otherwise each
 * folder directly under it that does (a repository's `skills/`). None is a usage error.
 */
export async function findItems(root: string): Promise<LocalItem[]> {
  const dir = path.resolve(root);
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new CliError(
      code === "ENOENT" ? `${root} does not exist.` : `${root} is not a folder that can be read (${code}).`,
      2,
    );
  }
  const own = kindOf(entries);
  if (own) return [await readItem(dir, own)];
  const items: LocalItem[] = [];
  for (const entry of entries.sort()) {
    if (SKIPPED.test(entry) || entry.startsWith(".")) continue;
    const child = path.join(dir, entry);
    if (!(await lstat(child)).isDirectory()) continue;
    const kind = kindOf(await readdir(child));
    if (kind) items.push(await readItem(child, kind));
  }
  if (items.length === 0)
    throw new CliError(
      `No skill found in ${root}: give a folder with a SKILL.md (or PERSONA.md), or one whose folders have one.`,
      2,
    );
  return items;
}

async function readItem(dir: string, kind: ItemKind): Promise<LocalItem> {
  const files: LocalFile[] = [];
  const walk = async (folder: string, prefix: string) => {
    for (const entry of (await readdir(folder)).sort()) {
      if (SKIPPED.test(entry)) continue;
      const full = path.join(folder, entry);
      const stat = await lstat(full);
      const rel = prefix ? `${prefix}/${entry}` : entry;
      // Links could reach outside the folder: a published skill holds only its own files.
      if (stat.isSymbolicLink()) continue;
      if (stat.isDirectory()) await walk(full, rel);
      else if (stat.isFile()) {
        const bytes = new Uint8Array(await readFile(full));
        files.push({ path: rel, bytes, digest: fileDigest(bytes) });
      }
    }
  };
  await walk(dir, "");
  return { dir, name: path.basename(dir), kind, files };
}

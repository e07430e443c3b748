import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rm, rmdir, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import type { Session } from "../api";
import { CliError, configDir, deviceId, readJson, writePrivate } from "../config";
import { fileDigest, type ItemKind, itemDigest } from "../skills/local";
import { downloadFile, fetchItem, listItems, type RemoteItem } from "../skills/remote";
import { LAYOUTS, type Layout, layoutOf, targetPath } from "./layouts";
import { type LockedItem, planSync, type WantedItem } from "./plan";

export interface SyncOptions {
  project: string;
  projectFolders: boolean;
  force: boolean;
  /** The clients to write for; by default every one installed here. */
  clients: string[] | null;
  env: NodeJS.ProcessEnv;
}

export interface ClientReport {
  client: string;
  label: string;
  root: string;
  written: number;
  removed: number;
  unchanged: number;
  kept: Array<{ rel: string; reason: "edited" | "not-ours" }>;
}

export interface SyncReport {
  clients: ClientReport[];
  items: { skill: number; persona: number };
  skipped: string[];
  deviceId: string;
}

interface LockFile {
  version: 1;
  roots: Record<string, { client: string; items: Record<string, LockedItem> }>;
}

interface Source {
  kind: ItemKind;
  name: string;
  ws: string;
  item: RemoteItem;
}

/** The clients to write for: the ones asked, or each whose folder exists in this home. */
export function chosenLayouts(clients: string[] | null, env: NodeJS.ProcessEnv): Layout[] {
  if (clients) {
    return clients.map((c) => {
      const layout = layoutOf(c);
      if (!layout) throw new CliError(`Unknown client "${c}": use ${LAYOUTS.map((l) => l.client).join(", ")}.`, 2);
      return layout;
    });
  }
  return LAYOUTS.filter((l) => existsSync(l.userRoot(env)));
}

/**
 * Writes the active skills and personas for the project into each client's folders, then tells
 * Loadout which clients on this device read which kinds (the handshake's fitting).
 */
export async function sync(session: Session, options: SyncOptions): Promise<SyncReport> {
  const layouts = chosenLayouts(options.clients, options.env);
  const { sources, skipped } = await activeSources(session, options.project);
  const lockPath = path.join(configDir(options.env), "sync-lock.json");
  const lock = (await readJson<LockFile>(lockPath)) ?? { version: 1, roots: {} };
  const bytesOf = cachedDownloads(session);
  const reports: ClientReport[] = [];

  for (const layout of layouts) {
    const root = options.projectFolders ? layout.projectRoot(options.project) : layout.userRoot(options.env);
    const wanted: WantedItem[] = [];
    const sourceOf = new Map<string, { source: Source; files: Map<string, string> }>();
    for (const source of sources) {
      if (!layout.kinds.includes(source.kind)) continue;
      const files = new Map<string, string>();
      const targets: Array<{ rel: string; digest: string }> = [];
      for (const f of source.item.files) {
        const rel = targetPath(source.kind, source.name, f.path);
        if (!rel) continue;
        files.set(rel, f.path);
        targets.push({ rel, digest: f.digest });
      }
      const key = `${source.kind}:${source.name}`;
      wanted.push({ key, digest: itemDigest(targets.map((t) => ({ path: t.rel, digest: t.digest }))), files: targets });
      sourceOf.set(key, { source, files });
    }
    const locked = lock.roots[root]?.items ?? {};
    const onDisk = await diskDigests(root, [
      ...wanted.flatMap((w) => w.files.map((f) => f.rel)),
      ...Object.values(locked).flatMap((l) => Object.keys(l.files)),
    ]);
    const plan = planSync(wanted, locked, (rel) => onDisk.get(rel) ?? null, options.force);
    for (const { key, rel } of plan.write) {
      const from = sourceOf.get(key);
      const sourcePath = from?.files.get(rel);
      if (!from || !sourcePath) continue;
      const target = inside(root, rel);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, await bytesOf(from.source, sourcePath));
    }
    for (const rel of plan.remove) {
      const target = inside(root, rel);
      await rm(target, { force: true });
      await pruneEmpty(root, path.dirname(target));
    }
    lock.roots[root] = { client: layout.client, items: plan.lock };
    reports.push({
      client: layout.client,
      label: layout.label,
      root,
      written: plan.write.length,
      removed: plan.remove.length,
      unchanged: plan.unchanged,
      kept: plan.kept,
    });
  }
  await writePrivate(lockPath, `${JSON.stringify(lock, null, 2)}\n`);

  const items = {
    skill: sources.filter((s) => s.kind === "skill").length,
    persona: sources.filter((s) => s.kind === "persona").length,
  };
  const device = await deviceId();
  await session.request("POST", "/v1/devices/sync", {
    json: {
      device,
      name: hostname().slice(0, 255) || "device",
      project: options.project,
      readers: layouts.map((l) => ({ client: l.client, kinds: [...l.kinds] })),
      written: items,
    },
  });
  return { clients: reports, items, skipped, deviceId: device };
}

/** The items active in the project, across the caller's workspaces: personal first, then teams. */
async function activeSources(session: Session, project: string): Promise<{ sources: Source[]; skipped: string[] }> {
  const me = await session.request<{ workspaces: Array<{ slug: string; kind: "personal" | "team" }> }>("GET", "/v1/me");
  const ordered = [...me.workspaces].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "personal" ? -1 : 1));
  const sources: Source[] = [];
  const skipped: string[] = [];
  const taken = new Set<string>();
  for (const workspace of ordered) {
    const ws = workspace.kind === "personal" ? "me" : workspace.slug;
    for (const summary of await listItems(session, ws, { project })) {
      // Folders are named by the item: one name, one folder, whichever workspace comes first.
      if (taken.has(summary.name)) {
        skipped.push(`${workspace.slug}/${summary.name} (a ${summary.kind} of that name is synced already)`);
        continue;
      }
      const item = await fetchItem(session, ws, summary.name);
      if (!item) continue;
      taken.add(summary.name);
      sources.push({ kind: item.kind, name: item.name, ws, item });
    }
  }
  return { sources, skipped };
}

function cachedDownloads(session: Session) {
  const cache = new Map<string, Promise<Uint8Array>>();
  return (source: Source, filePath: string) => {
    const key = `${source.ws}\u0000${source.name}\u0000${filePath}`;
    let bytes = cache.get(key);
    if (!bytes) {
      bytes = downloadFile(session, source.ws, source.name, filePath);
      cache.set(key, bytes);
    }
    return bytes;
  };
}

async function diskDigests(root: string, rels: string[]): Promise<Map<string, string>> {
  const digests = new Map<string, string>();
  for (const rel of new Set(rels)) {
    try {
      digests.set(rel, fileDigest(new Uint8Array(await readFile(inside(root, rel)))));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
  return digests;
}

/** The file's absolute path, refusing one that would leave the root (names and paths are checked by the server too). */
function inside(root: string, rel: string): string {
  const target = path.resolve(root, rel);
  if (!target.startsWith(path.resolve(root) + path.sep))
    throw new CliError(`Refusing to write outside ${root}: ${rel}`, 1);
  return target;
}

/** Removes the folders a removal left empty, up to the client's `skills/` or `agents/`. */
async function pruneEmpty(root: string, dir: string): Promise<void> {
  const stop = new Set([path.resolve(root), path.join(root, "skills"), path.join(root, "agents")]);
  let current = path.resolve(dir);
  while (!stop.has(current) && current.startsWith(path.resolve(root) + path.sep)) {
    if ((await readdir(current)).length > 0) return;
    await rmdir(current);
    current = path.dirname(current);
  }
}

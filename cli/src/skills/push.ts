import { zipSync } from "fflate";
import { ApiError, type ErrorDetail, type Session } from "../api";
import { findItems, type LocalItem } from "./local";
import { fetchItem, itemPath, type RemoteItem } from "./remote";

export type PushOutcome =
  | { name: string; status: "created" | "updated"; version: number }
  | { name: string; status: "unchanged" }
  | { name: string; status: "would-create" | "would-update" }
  | { name: string; status: "refused"; message: string; details: ErrorDetail[] };

/** What differs between a local folder and the stored item: files to send, and files to remove. */
export function changesOf(local: LocalItem, remote: RemoteItem): { send: string[]; remove: string[] } {
  const stored = new Map(remote.files.map((f) => [f.path, f.digest]));
  const send = local.files.filter((f) => stored.get(f.path) !== f.digest).map((f) => f.path);
  const here = new Set(local.files.map((f) => f.path));
  const remove = remote.files.filter((f) => !here.has(f.path)).map((f) => f.path);
  return { send, remove };
}

const utf8 = new TextDecoder("utf-8", { fatal: true });
function fileInput(bytes: Uint8Array): { content: string } | { contentBase64: string } {
  try {
    return { content: utf8.decode(bytes) };
  } catch {
    return { contentBase64: Buffer.from(bytes).toString("base64") };
  }
}

/**
 * Publishes each item under `dir` to workspace `ws`: a new one as an archive of its folder (so its
 * document is stored as written), a changed one as one edit of the files that differ, an unchanged
 * one (same digests) not at all. A refused item is reported with the server's reasons and the
 * others still go: each item is one write, stored whole or not at all.
 */
export async function push(
  session: Session,
  options: { dir: string; ws: string; dryRun: boolean },
): Promise<PushOutcome[]> {
  const items = await findItems(options.dir);
  const outcomes: PushOutcome[] = [];
  for (const local of items) outcomes.push(await pushOne(session, local, options));
  return outcomes;
}

async function pushOne(
  session: Session,
  local: LocalItem,
  options: { ws: string; dryRun: boolean },
): Promise<PushOutcome> {
  const { name } = local;
  try {
    const remote = await fetchItem(session, options.ws, name);
    if (remote && remote.kind !== local.kind)
      return refused(name, `"${name}" exists as a ${remote.kind} in Loadout; this folder holds a ${local.kind}.`);
    const changes = remote ? changesOf(local, remote) : null;
    if (changes && changes.send.length === 0 && changes.remove.length === 0) return { name, status: "unchanged" };
    if (options.dryRun) {
      // The server's own checks, run here on the files as they would be sent (nothing is stored).
      const problem = await localProblem(local);
      if (problem) return problem;
      return { name, status: remote ? "would-update" : "would-create" };
    }
    if (!remote || !changes) {
      const archive = zipSync(Object.fromEntries(local.files.map((f) => [`${name}/${f.path}`, f.bytes])));
      const created = await session.request<RemoteItem>(
        "POST",
        `/v1/workspaces/${encodeURIComponent(options.ws)}/skills/import?kind=${local.kind}`,
        { body: archive, contentType: "application/zip" },
      );
      return { name, status: "created", version: created.version };
    }
    const files: Record<string, ReturnType<typeof fileInput> | null> = {};
    for (const path of changes.send) {
      const file = local.files.find((f) => f.path === path);
      if (file) files[path] = fileInput(file.bytes);
    }
    for (const path of changes.remove) files[path] = null;
    const updated = await session.request<RemoteItem>("PATCH", itemPath(options.ws, name), {
      json: { revision: remote.revision, files },
    });
    return { name, status: "updated", version: updated.version };
  } catch (error) {
    if (error instanceof ApiError) return refused(name, error.message, error.details);
    throw error;
  }
}

function refused(name: string, message: string, details: ErrorDetail[] = []): PushOutcome {
  return { name, status: "refused", message, details };
}

async function localProblem(local: LocalItem): Promise<PushOutcome | null> {
  // Loaded only for a dry run: the credential scan brings secretlint's rules.
  const { prepareContent } = await import("@loadout/api/services/skills/content");
  const { AppError } = await import("@loadout/api/errors");
  try {
    await prepareContent(
      local.kind,
      local.name,
      local.files.map((f) => ({ path: f.path, size: f.bytes.byteLength, bytes: f.bytes })),
    );
    return null;
  } catch (error) {
    if (error instanceof AppError) return refused(local.name, error.message, error.details ?? []);
    throw error;
  }
}

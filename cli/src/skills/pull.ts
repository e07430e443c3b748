import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import type { Session } from "../api";
import { CliError } from "../config";
import { downloadFile, fetchItem } from "./remote";

/** `team/name` reads from the team's workspace; a bare name from yours (`me`), unless `--workspace` says. */
export function addressOf(address: string, workspace: string | undefined): { ws: string; name: string } {
  const slash = address.indexOf("/");
  if (slash < 0) return { ws: workspace ?? "me", name: address };
  return { ws: address.slice(0, slash), name: address.slice(slash + 1) };
}

/** Writes the item's files into `<dir>/<name>/`, as they are stored. */
export async function pull(
  session: Session,
  options: { address: string; dir: string; workspace?: string },
): Promise<{ folder: string; files: number }> {
  const { ws, name } = addressOf(options.address, options.workspace);
  const item = await fetchItem(session, ws, name);
  if (!item) throw new CliError(`"${options.address}" was not found. \`loadout skills list\` shows your items.`, 1);
  const folder = path.resolve(options.dir, name);
  for (const file of item.files) {
    const target = path.resolve(folder, file.path);
    // Paths are checked by the server; this keeps a bad one from leaving the folder all the same.
    if (!target.startsWith(folder + path.sep)) continue;
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, await downloadFile(session, ws, name, file.path));
  }
  return { folder, files: item.files.length };
}

import { createPatch } from "diff";

/** What an edit did to one file, as `skill_edit` reports it (and its MCP Apps view shows it). */
export interface FileChange {
  path: string;
  status: "added" | "removed" | "changed";
  /** A unified diff of its text (absent for a file that is not UTF-8 text, or too different to diff cheaply). */
  patch?: string;
  /** The patch was cut at PATCH_LIMIT characters, or left out for the reason in `note`. */
  truncated?: boolean;
  note?: string;
}

/** A patch is cut here: the view bounds what it renders, the model's context what it reads. */
export const PATCH_LIMIT = 20_000;
/** Larger edits are not diffed at all (the diff's cost grows with the edit's size): said so instead. */
const MAX_EDIT_LENGTH = 4_000;
const decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function textOf(bytes: Uint8Array | null): string | null {
  if (!bytes) return "";
  try {
    return decoder.decode(bytes);
  } catch {
    return null;
  }
}

/**
 * One file's change as a unified diff (jsdiff's `createPatch`, bounded in edit length so that a
 * rewrite of a large file costs little), cut at PATCH_LIMIT characters.
 */
export function fileChange(path: string, before: Uint8Array | null, after: Uint8Array | null): FileChange {
  const status = before === null ? "added" : after === null ? "removed" : "changed";
  const old = textOf(before);
  const next = textOf(after);
  if (old === null || next === null) return { path, status, note: "not UTF-8 text: no diff shown" };
  const patch = createPatch(path, old, next, undefined, undefined, { context: 3, maxEditLength: MAX_EDIT_LENGTH });
  if (patch === undefined) return { path, status, truncated: true, note: "too many changed lines to diff here" };
  // The file header lines ("Index:", "===", "---", "+++") name the file, which `path` already does.
  const body = patch.slice(patch.indexOf("@@") >= 0 ? patch.indexOf("@@") : patch.length);
  return body.length > PATCH_LIMIT
    ? { path, status, patch: body.slice(0, PATCH_LIMIT), truncated: true }
    : { path, status, patch: body };
}

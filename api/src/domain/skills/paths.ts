/**
 * File paths inside a skill: relative, `/`-separated, portable to every file system a client may
 * unpack a skill onto. Paths become `skill://…` URIs and folder entries on users' machines, so
 * anything that could climb out of the skill's folder, hide in a listing or collide on a
 * case-insensitive disk is refused.
 */
import { docNameFor, type ItemKind } from "./names";

export interface PathProblem {
  path: string;
  message: string;
}

export const SEGMENT_MAX_BYTES = 255;
export const PATH_MAX_BYTES = 1024;

/**
 * C0 and C1 controls, DEL, the Unicode line and paragraph separators (they end a line in
 * JavaScript and JSON tools), and bidirectional overrides, which can make `evil‮txt.exe` read as
 * a harmless name.
 */
function firstControl(path: string): string | undefined {
  for (const char of path) {
    const code = char.codePointAt(0) ?? 0;
    if (
      code < 0x20 ||
      (code >= 0x7f && code <= 0x9f) ||
      code === 0x2028 ||
      code === 0x2029 ||
      (code >= 0x202a && code <= 0x202e) ||
      (code >= 0x2066 && code <= 0x2069)
    ) {
      return char;
    }
  }
  return undefined;
}

const encoder = new TextEncoder();
const byteLength = (text: string) => encoder.encode(text).byteLength;

const describeChar = (char: string) => `U+${(char.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * The first thing wrong with one path, or `null`: the one rule for a path, whether it came in a
 * JSON body (the request schema applies it) or as an archive entry's name.
 */
export function pathProblem(path: string): string | null {
  if (path === "") return "the path is empty; give the file a name such as references/guide.md";
  if (/\p{Cs}/u.test(path))
    return "the path holds a broken character (a lone UTF-16 surrogate); send well-formed Unicode";
  const control = firstControl(path);
  if (control !== undefined) {
    return `the path contains the control character ${describeChar(control)}; rename the file using visible characters only`;
  }
  if (path.startsWith("/") || path.startsWith("\\") || /^[A-Za-z]:/.test(path)) {
    return "the path is absolute; use a path relative to the skill's folder, such as references/guide.md";
  }
  if (path.includes("\\")) return "the path contains a backslash; use / to separate folders, such as scripts/run.py";
  const length = byteLength(path);
  if (length > PATH_MAX_BYTES) {
    return `the path is ${length} bytes long; use at most ${PATH_MAX_BYTES} bytes (UTF-8) by shortening folder or file names`;
  }
  for (const segment of path.split("/")) {
    if (segment === "") {
      return "the path has an empty folder name (a doubled or trailing /); remove the extra /";
    }
    if (segment === "." || segment === "..") {
      return `the path contains "${segment}"; name the file by its plain path inside the skill's folder, without . or .. parts`;
    }
    const segmentLength = byteLength(segment);
    if (segmentLength > SEGMENT_MAX_BYTES) {
      return `the name "${segment.slice(0, 24)}…" is ${segmentLength} bytes long; a file or folder name may be at most ${SEGMENT_MAX_BYTES} bytes (UTF-8)`;
    }
  }
  return null;
}

/**
 * Every problem, in the order the paths were given. Two paths that differ only in case (or only
 * in Unicode normalization, which macOS also ignores) would overwrite each other on unpacking,
 * so the second one is reported, naming the first. Messages do not repeat the path: each
 * problem's `path` names it, and every message is shown after it.
 */
export function validateFilePaths(paths: string[]): PathProblem[] {
  const problems: PathProblem[] = [];
  const seen = new Map<string, string>();
  for (const path of paths) {
    const problem = pathProblem(path);
    if (problem !== null) {
      problems.push({ path, message: problem });
      continue;
    }
    const key = path.normalize("NFC").toLowerCase();
    const first = seen.get(key);
    if (first === undefined) {
      seen.set(key, path);
    } else if (first === path) {
      problems.push({ path, message: "this path is listed twice; keep one copy of the file" });
    } else {
      problems.push({
        path,
        message:
          `differs from ${first} only in letter case or accents; rename one of them, ` +
          "because they would overwrite each other on macOS and Windows",
      });
    }
  }
  return problems;
}

/** The item's document (`SKILL.md`, or `PERSONA.md`) at the top of the folder; `kind` narrows it to one. */
export function isDocPath(path: string, kind?: ItemKind): boolean {
  if (kind !== undefined) return path === docNameFor(kind);
  return path === "SKILL.md" || path === "PERSONA.md";
}

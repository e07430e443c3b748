import { AppError } from "../errors";
import { normalizeProjectPath } from "./activation";

/** The key under which Loadout asks a 2026-07-28 client for its roots (an MRTR input request). */
export const ROOTS_INPUT_KEY = "loadout_roots";

/**
 * The session's project from a client's MCP roots, as answered to Loadout's `roots/list` input
 * request: the first `file://` root, normalised like every project path. `undefined` when the
 * request carries no such answer; null when it does but names no file root.
 */
export function projectFromRoots(inputResponses: unknown): string | null | undefined {
  if (!inputResponses || typeof inputResponses !== "object") return undefined;
  const answer = (inputResponses as Record<string, unknown>)[ROOTS_INPUT_KEY];
  if (!answer || typeof answer !== "object") return undefined;
  // A bare ListRootsResult, or one wrapped as { result } by some peers.
  const result = ("roots" in answer ? answer : (answer as { result?: unknown }).result) as
    | { roots?: unknown }
    | undefined;
  if (!Array.isArray(result?.roots)) return undefined;
  for (const root of result.roots as { uri?: unknown }[]) {
    if (typeof root?.uri === "string" && /^file:\/\//i.test(root.uri)) {
      const path = rootPath(root.uri);
      if (path) return path;
    }
  }
  return null;
}

/** A root no folder can have (a NUL, a control character) is passed over like a non-file root. */
function rootPath(uri: string): string {
  try {
    return normalizeProjectPath(uri);
  } catch (error) {
    if (error instanceof AppError) return "";
    throw error;
  }
}

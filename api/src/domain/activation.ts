/**
 * Activation: every skill, persona and server carries `enabled` and a scope, stored apart so a
 * user can switch an item off and on again without re-picking its projects (DESIGN.md,
 * "Activation"). `isActiveInProject` is the one matching rule; catalog assembly and dispatch
 * both call it.
 */

import { AppError } from "../errors";
import { textProblem } from "./text";

export type ScopeMode = "global" | "projects";

export interface ActivationScope {
  mode: ScopeMode;
  projects: string[];
}

export type ActivationState = "off" | "projects" | "global";

export const GLOBAL_SCOPE: ActivationScope = { mode: "global", projects: [] };

/** The shape check only; paths are kept as given. Anything else is `null`, which callers read as global. */
export function parseScope(input: unknown): ActivationScope | null {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return null;
  const { mode, projects } = input as { mode?: unknown; projects?: unknown };
  if (mode !== "global" && mode !== "projects") return null;
  if (!Array.isArray(projects) || !projects.every((p): p is string => typeof p === "string")) return null;
  return { mode, projects: [...projects] };
}

/**
 * The scope as it is stored: paths normalized, blanks dropped, duplicates removed (first kept).
 * We store the normalized form rather than the user's spelling so that what the console shows is
 * exactly what matching compares, and two spellings of one folder cannot both be listed.
 */
export function normalizeScope(scope: ActivationScope): ActivationScope {
  const projects: string[] = [];
  for (const path of scope.projects) {
    const normalized = normalizeProjectPath(path);
    if (normalized !== "" && !projects.includes(normalized)) projects.push(normalized);
  }
  return { mode: scope.mode, projects };
}

/** The console's three-state control, derived from the stored pair and never stored itself. */
export function activationState(enabled: boolean, scope: unknown): ActivationState {
  if (!enabled) return "off";
  return parseScope(scope)?.mode === "projects" ? "projects" : "global";
}

/**
 * One spelling per folder, for POSIX and Windows paths and `file://` URIs (MCP roots):
 * `C:\Work\Mono\` and `file:///c:/work/mono` both become `c:/work/mono`.
 *
 * Lowercased because macOS and Windows hand us case-varying spellings of one directory.
 * `.` and `..` segments are resolved lexically so that `/work/mono/../other` cannot pass for a
 * folder inside `/work/mono`. A leading `//` (a UNC share, `\\server\share`) is kept so a share
 * never equals the POSIX path `/server/share`.
 */
export function normalizeProjectPath(path: string): string {
  let p = path.trim();
  if (/^file:\/\//i.test(p)) p = fromFileUri(p);
  // Checked after decoding: `%00` in a URI or `?project=` is a NUL all the same, which no folder
  // name holds and Postgres cannot store.
  const problem = textProblem(p);
  if (problem)
    throw new AppError("invalid_request", `The project path ${problem}.`, {
      details: [{ path: "project", message: problem }],
    });
  p = p.replace(/\\/g, "/").toLowerCase();
  if (p === "") return "";

  let root = "";
  const drive = /^\/?([a-z]):(?:\/|$)/.exec(p);
  if (drive) {
    root = `${drive[1]}:/`;
    p = p.slice(drive[0].length);
  } else if (p.startsWith("//") && !p.startsWith("///")) {
    root = "//";
    p = p.slice(2);
  } else if (p.startsWith("/")) {
    root = "/";
  }

  const segments: string[] = [];
  for (const segment of p.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      // Above a root there is nothing to climb to; a relative path keeps its leading `..`.
      if (segments.length > 0 && segments.at(-1) !== "..") segments.pop();
      else if (root === "") segments.push(segment);
      continue;
    }
    segments.push(segment);
  }
  const joined = segments.join("/");
  if (root === "//" && joined === "") return "/";
  return root + joined;
}

/** `file:///c:/work` → `/c:/work`; `file://host/share` → `//host/share`; percent-escapes decoded. */
function fromFileUri(uri: string): string {
  const rest = uri.slice("file://".length);
  const slash = rest.indexOf("/");
  const host = slash === -1 ? rest : rest.slice(0, slash);
  const pathPart = slash === -1 ? "/" : rest.slice(slash);
  const decoded = percentDecode(pathPart.replace(/[?#].*$/, ""));
  return host === "" || host.toLowerCase() === "localhost" ? decoded : `//${percentDecode(host)}${decoded}`;
}

function percentDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    // A stray `%` in a hand-typed URI: keep it literally rather than refusing the project.
    return text;
  }
}

/** `inner` is `outer` or a folder below it; both already normalized. */
function isWithin(inner: string, outer: string): boolean {
  if (outer === "" || inner === "") return false;
  if (inner === outer) return true;
  const prefix = outer.endsWith("/") ? outer : `${outer}/`;
  return inner.startsWith(prefix);
}

/**
 * The single matching rule (DESIGN.md, "Activation"):
 * - paths compare case-insensitively and ignore a trailing separator;
 * - a scoped path also matches its subdirectories (`/work/mono` covers `/work/mono/pkg`, not
 *   `/work/monorepo`);
 * - a projects-mode item is inactive in a session with no project;
 * - a missing or unrecognised scope means global.
 * A disabled item is never active.
 */
export function isActiveInProject(
  item: { enabled: boolean; scope?: unknown },
  projectPath: string | null | undefined,
): boolean {
  if (!item.enabled) return false;
  const scope = parseScope(item.scope);
  if (scope === null || scope.mode === "global") return true;
  const project = normalizeProjectPath(projectPath ?? "");
  if (project === "") return false;
  return scope.projects.some((scoped) => isWithin(project, normalizeProjectPath(scoped)));
}

/** A stored row's activation (skills, personas and servers keep their scope in two columns). */
export interface ScopedRow {
  enabled: boolean;
  scopeMode: string;
  scopeProjects: readonly string[] | null;
}

/**
 * Why a stored row is not active in a session with this project, as the agent reads it; null when
 * it is active.
 */
export function inactiveBecause(row: ScopedRow, projectPath: string | null | undefined): string | null {
  if (!row.enabled) return "is switched off (Where it is active: off, on its page in the Loadout console)";
  if (isRowActive(row, projectPath)) return null;
  const project = normalizeProjectPath(projectPath ?? "");
  return project
    ? `is active only on other projects than ${project} (Where it is active, on its page in the Loadout console)`
    : "is active only on chosen projects, and this session names none (send X-Loadout-Project or ?project=)";
}

/** The matching rule for a stored row: the check every catalog, dispatch and read makes. */
export function isRowActive(row: ScopedRow, projectPath: string | null | undefined): boolean {
  return isActiveInProject(
    { enabled: row.enabled, scope: { mode: row.scopeMode, projects: row.scopeProjects } },
    projectPath,
  );
}

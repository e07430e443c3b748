import { homedir } from "node:os";
import path from "node:path";
import type { FolderClient } from "@loadout/api/domain/fitting/fitting";
import type { ItemKind } from "../skills/local";

/**
 * Where each client reads skills and personas, per its documentation: a skill is a folder
 * `<skills>/<name>/SKILL.md` (the Agent Skills layout every one of them reads), a persona one
 * Markdown file `<agents>/<name>.md` (Claude Code's subagents; Cursor's and opencode's agents).
 * Codex reads skills only. With `--project-folders`, the project's own folders instead.
 */
export interface Layout {
  client: FolderClient;
  /** Shown to people. */
  label: string;
  /** The folder whose presence says the client is installed, and the user-level root. */
  userRoot: (env: NodeJS.ProcessEnv) => string;
  projectRoot: (project: string) => string;
  kinds: readonly ItemKind[];
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();
const xdgConfig = (env: NodeJS.ProcessEnv) => env.XDG_CONFIG_HOME || path.join(home(env), ".config");

export const LAYOUTS: readonly Layout[] = [
  {
    client: "claude-code",
    label: "Claude Code",
    userRoot: (env) => path.join(home(env), ".claude"),
    projectRoot: (p) => path.join(p, ".claude"),
    kinds: ["skill", "persona"],
  },
  {
    client: "codex",
    label: "Codex",
    userRoot: (env) => env.CODEX_HOME || path.join(home(env), ".codex"),
    projectRoot: (p) => path.join(p, ".codex"),
    kinds: ["skill"],
  },
  {
    client: "cursor",
    label: "Cursor",
    userRoot: (env) => path.join(home(env), ".cursor"),
    projectRoot: (p) => path.join(p, ".cursor"),
    kinds: ["skill", "persona"],
  },
  {
    client: "opencode",
    label: "opencode",
    userRoot: (env) => path.join(xdgConfig(env), "opencode"),
    projectRoot: (p) => path.join(p, ".opencode"),
    kinds: ["skill", "persona"],
  },
];

/** A file's place under a client's root: `skills/<name>/<path>`, or `agents/<name>.md` for a persona. */
export function targetPath(kind: ItemKind, name: string, filePath: string): string | null {
  if (kind === "skill") return `skills/${name}/${filePath}`;
  // A persona is its PERSONA.md alone; the clients read no other file of it.
  return filePath === "PERSONA.md" ? `agents/${name}.md` : null;
}

export function layoutOf(client: string): Layout | undefined {
  return LAYOUTS.find((l) => l.client === client);
}

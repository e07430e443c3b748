import { readFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import type { Session } from "../api";
import { CliError, deviceId, writePrivate } from "../config";
import { configFile, MCP_CLIENTS, type McpClient, withEntry } from "./entries";

/** Cursor and VS Code put the open folder's path into a config value themselves. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: the client expands it, not JavaScript.
const WORKSPACE_FOLDER = "${workspaceFolder}";

export interface AddOptions {
  client: string;
  /** An explicit project path; otherwise each client's default (see projectFor). */
  project: string | undefined;
  /** No project header at all. */
  global: boolean;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/** The project header a client's entry sends, by default the folder the client has open. */
export function projectFor(client: McpClient, options: Pick<AddOptions, "project" | "global" | "cwd">): string | null {
  if (options.global) return null;
  if (options.project) return path.resolve(options.cwd, options.project);
  switch (client) {
    case "cursor":
    case "vscode":
      return WORKSPACE_FOLDER;
    case "claude-desktop":
      return null;
    default:
      return path.resolve(options.cwd);
  }
}

/**
 * Writes Loadout's MCP entry into the client's config file: this server's MCP URL, a token made
 * for this client on this device (scope `mcp`), the project header and the device header.
 */
export async function addMcp(session: Session, options: AddOptions): Promise<{ file: string; tokenName: string }> {
  if (!(MCP_CLIENTS as readonly string[]).includes(options.client))
    throw new CliError(`Unknown client "${options.client}": use ${MCP_CLIENTS.join(", ")}.`, 2);
  const client = options.client as McpClient;
  const file = configFile(client, options.env);
  let existing: string | null = null;
  try {
    existing = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const device = await deviceId();
  const project = projectFor(client, options);
  // Checked before the token is made: a file that cannot take the entry costs no token.
  const probe = { url: `${session.origin}/mcp`, token: "lo_", deviceId: device, project };
  try {
    withEntry(client, existing, probe, file);
  } catch (error) {
    throw new CliError((error as Error).message, 1);
  }
  const tokenName = `${client} on ${hostname()}`.slice(0, 64);
  const created = await session.request<{ secret: string }>("POST", "/v1/tokens", {
    json: { name: tokenName, scopes: ["mcp"] },
  });
  await writePrivate(file, withEntry(client, existing, { ...probe, token: created.secret }, file));
  return { file, tokenName };
}

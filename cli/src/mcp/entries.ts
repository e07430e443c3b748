import { homedir } from "node:os";
import path from "node:path";
import { parse as parseToml, stringify as stringifyToml } from "smol-toml";

export const MCP_CLIENTS = ["claude-code", "cursor", "vscode", "codex", "claude-desktop"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export interface Connection {
  url: string;
  token: string;
  deviceId: string;
  /** The project header's value: a path, or the client's own variable for its open folder. */
  project: string | null;
}

/** The entry's name in every client's config. */
export const SERVER_NAME = "loadout";

/** The headers each entry sends: the token, the project (when there is one) and this device. */
export function headersOf(c: Connection): Record<string, string> {
  return {
    Authorization: `Bearer ${c.token}`,
    ...(c.project ? { "X-Loadout-Project": c.project } : {}),
    "X-Loadout-Device": c.deviceId,
  };
}

const home = (env: NodeJS.ProcessEnv) => env.HOME || homedir();

/** The config file each client reads its MCP servers from, per its documentation. */
export function configFile(client: McpClient, env: NodeJS.ProcessEnv, platform = process.platform): string {
  const appData = env.APPDATA || path.join(home(env), "AppData", "Roaming");
  switch (client) {
    // Claude Code's user settings; a project's servers sit under projects[path] in the same file.
    case "claude-code":
      return path.join(home(env), ".claude.json");
    case "cursor":
      return path.join(home(env), ".cursor", "mcp.json");
    // VS Code's user-level MCP configuration, in its profile folder.
    case "vscode":
      return platform === "darwin"
        ? path.join(home(env), "Library", "Application Support", "Code", "User", "mcp.json")
        : platform === "win32"
          ? path.join(appData, "Code", "User", "mcp.json")
          : path.join(env.XDG_CONFIG_HOME || path.join(home(env), ".config"), "Code", "User", "mcp.json");
    case "codex":
      return path.join(env.CODEX_HOME || path.join(home(env), ".codex"), "config.toml");
    case "claude-desktop":
      return platform === "darwin"
        ? path.join(home(env), "Library", "Application Support", "Claude", "claude_desktop_config.json")
        : platform === "win32"
          ? path.join(appData, "Claude", "claude_desktop_config.json")
          : path.join(env.XDG_CONFIG_HOME || path.join(home(env), ".config"), "Claude", "claude_desktop_config.json");
  }
}

/**
 * The client's config text with Loadout's entry added or replaced, everything else kept.
 * `existing` is null when the file does not exist yet. Throws a sentence when the file cannot be
 * read as its format (the file is then left alone).
 */
export function withEntry(client: McpClient, existing: string | null, c: Connection, file: string): string {
  if (client === "codex") {
    let doc: Record<string, unknown>;
    try {
      doc = existing ? (parseToml(existing) as Record<string, unknown>) : {};
    } catch (error) {
      throw new Error(`${file} is not valid TOML (${(error as Error).message.split("\n")[0]}); fix it first.`);
    }
    // Codex's streamable HTTP servers: url, and headers sent on every request.
    const entry = { url: c.url, http_headers: headersOf(c) };
    // The file is edited as text where it can be, so the user's comments and layout stay: the old
    // table goes, the new one is appended. Only if that does not read back (the entry written
    // inline or with dotted keys) is the whole document written again.
    const edited = `${withoutTomlTable(existing ?? "", `mcp_servers.${SERVER_NAME}`).trimEnd()}\n\n${stringifyToml({
      mcp_servers: { [SERVER_NAME]: entry },
    })}\n`.trimStart();
    try {
      const back = parseToml(edited) as { mcp_servers?: Record<string, unknown> };
      if (JSON.stringify(back.mcp_servers?.[SERVER_NAME]) === JSON.stringify(entry)) return edited;
    } catch {
      // Falls through to writing the whole document.
    }
    const servers = (isObject(doc.mcp_servers) ? doc.mcp_servers : {}) as Record<string, unknown>;
    servers[SERVER_NAME] = entry;
    doc.mcp_servers = servers;
    return `${stringifyToml(doc)}\n`;
  }
  let doc: Record<string, unknown>;
  try {
    doc = existing?.trim() ? (JSON.parse(existing) as Record<string, unknown>) : {};
  } catch {
    throw new Error(
      `${file} is not plain JSON (comments or trailing commas?); add the entry by hand, or fix the file first.`,
    );
  }
  if (!isObject(doc)) throw new Error(`${file} does not hold a JSON object; fix it first.`);
  const put = (holder: Record<string, unknown>, key: string, entry: unknown) => {
    const map = isObject(holder[key]) ? (holder[key] as Record<string, unknown>) : {};
    map[SERVER_NAME] = entry;
    holder[key] = map;
  };
  switch (client) {
    case "claude-code": {
      const entry = { type: "http", url: c.url, headers: headersOf(c) };
      // With a project, Claude Code's local scope: the entry applies in that folder only.
      if (c.project) {
        const projects = isObject(doc.projects) ? (doc.projects as Record<string, unknown>) : {};
        const own = isObject(projects[c.project]) ? (projects[c.project] as Record<string, unknown>) : {};
        put(own, "mcpServers", entry);
        projects[c.project] = own;
        doc.projects = projects;
      } else put(doc, "mcpServers", entry);
      break;
    }
    case "cursor":
      put(doc, "mcpServers", { url: c.url, headers: headersOf(c) });
      break;
    case "vscode":
      put(doc, "servers", { type: "http", url: c.url, headers: headersOf(c) });
      break;
    case "claude-desktop": {
      // Its config file starts local (stdio) servers only: mcp-remote bridges to the URL. The
      // token goes through the environment, as mcp-remote's documentation shows, so no header
      // value with a space is split on Windows.
      // biome-ignore lint/suspicious/noTemplateCurlyInString: mcp-remote expands it from env, not JavaScript.
      const args = ["-y", "mcp-remote", c.url, "--header", "Authorization:${LOADOUT_AUTHORIZATION}"];
      args.push("--header", `X-Loadout-Device:${c.deviceId}`);
      if (c.project) args.push("--header", `X-Loadout-Project:${c.project}`);
      put(doc, "mcpServers", {
        command: "npx",
        args,
        env: { LOADOUT_AUTHORIZATION: `Bearer ${c.token}` },
      });
      break;
    }
  }
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/**
 * The TOML text without the table `name` and its subtables (`[name]`, `[name.sub]`), from its
 * header to the next header outside it. Written here: TOML libraries parse and write whole
 * documents, dropping comments.
 */
export function withoutTomlTable(text: string, name: string): string {
  const lines = text.split("\n");
  const kept: string[] = [];
  // Comments and blank lines met while skipping belong to whatever comes next.
  let pending: string[] = [];
  let skipping = false;
  for (const line of lines) {
    const header = /^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$/.exec(line)?.[1];
    if (header !== undefined) skipping = header === name || header.startsWith(`${name}.`);
    if (!skipping) {
      kept.push(...pending, line);
      pending = [];
    } else if (/^\s*(#.*)?$/.test(line)) pending.push(line);
    else pending = [];
  }
  return kept.join("\n");
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

// The configuration each MCP client needs for Loadout's one URL, as text to paste.

export type ClientId = "claude-code" | "cursor" | "vscode" | "codex" | "other";

export type ClientInfo = {
  id: ClientId;
  label: string;
  // The client's name in the token created for it: "Cursor on 2026-05-02".
  tokenName: string;
  // Which file or command the snippet is for, as shown above it.
  target: string;
};

export const CLIENTS: readonly ClientInfo[] = [
  { id: "claude-code", label: "Claude Code", tokenName: "Claude Code", target: "Terminal" },
  { id: "cursor", label: "Cursor", tokenName: "Cursor", target: "~/.cursor/mcp.json" },
  { id: "vscode", label: "VS Code", tokenName: "VS Code", target: ".vscode/mcp.json" },
  { id: "codex", label: "Codex", tokenName: "Codex", target: "~/.codex/config.toml" },
  { id: "other", label: "Other (mcpServers JSON)", tokenName: "MCP client", target: "mcpServers JSON" },
];

export const TOKEN_PLACEHOLDER = "lo_…";

export type SnippetOptions = {
  url: string; // the MCP URL, `${origin}/mcp`
  token: string | null; // null: the placeholder
  project: string; // as typed; empty for none
  plan: boolean;
};

export type Connection = {
  url: string;
  headers: Record<string, string>;
  // The project could not travel in a header (HTTP header values are ASCII), so it is in the URL.
  projectInUrl: boolean;
};

// Printable ASCII only: fetch and most HTTP stacks refuse anything else in a header value.
const HEADER_SAFE = /^[\x20-\x7e]*$/;

export function connectionFor({ url, token, project, plan }: SnippetOptions): Connection {
  const headers: Record<string, string> = { Authorization: `Bearer ${token ?? TOKEN_PLACEHOLDER}` };
  const path = project.trim();
  let target = url;
  let projectInUrl = false;
  if (path) {
    if (HEADER_SAFE.test(path)) {
      headers["X-Loadout-Project"] = path;
    } else {
      const withQuery = new URL(url);
      withQuery.searchParams.set("project", path);
      target = withQuery.toString();
      projectInUrl = true;
    }
  }
  if (plan) headers["X-Loadout-Mode"] = "plan";
  return { url: target, headers, projectInUrl };
}

// A POSIX shell word: left bare when it has nothing the shell would read, else double-quoted.
function shellWord(value: string): string {
  if (/^[A-Za-z0-9_\-.:/@%+=,]+$/.test(value)) return value;
  return `"${value.replace(/["\\$`]/g, (char) => `\\${char}`)}"`;
}

// TOML basic strings accept JSON's escapes (\" \\ \n \t \uXXXX).
const tomlString = (value: string) => JSON.stringify(value);

export function snippetFor(client: ClientId, options: SnippetOptions): string {
  const { url, headers } = connectionFor(options);
  switch (client) {
    case "claude-code": {
      const headerArgs = Object.entries(headers).map(([name, value]) => `--header ${shellWord(`${name}: ${value}`)}`);
      return ["claude mcp add --transport http loadout", shellWord(url), ...headerArgs].join(" ");
    }
    case "cursor":
    case "other":
      return JSON.stringify({ mcpServers: { loadout: { url, headers } } }, null, 2);
    case "vscode":
      return JSON.stringify({ servers: { loadout: { type: "http", url, headers } } }, null, 2);
    case "codex": {
      const pairs = Object.entries(headers).map(([name, value]) => `${tomlString(name)} = ${tomlString(value)}`);
      return ["[mcp_servers.loadout]", `url = ${tomlString(url)}`, `http_headers = { ${pairs.join(", ")} }`].join("\n");
    }
  }
}

// The token scopes the REST API accepts, with what each one lets a token do.
export const TOKEN_SCOPES = [
  { scope: "mcp", hint: "Use the MCP endpoint: connect Claude Code, Cursor, VS Code or Codex." },
  { scope: "skills:read", hint: "List and read skills and personas." },
  { scope: "skills:write", hint: "Create, edit and publish skills and personas." },
  { scope: "servers:read", hint: "List remote MCP servers and their tools." },
  { scope: "servers:write", hint: "Add, edit, test and remove remote MCP servers." },
  { scope: "admin", hint: "Manage API tokens and team members." },
] as const;

export const DEFAULT_SCOPES: readonly string[] = ["mcp"];

export const EXPIRY_OPTIONS = [
  { value: "7", label: "7 days" },
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "365 days" },
  { value: "never", label: "Never" },
] as const;

export const DEFAULT_EXPIRY = "30";

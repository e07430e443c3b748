export const SCOPES = ["mcp", "skills:read", "skills:write", "servers:read", "servers:write", "admin"] as const;
export type Scope = (typeof SCOPES)[number];

export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  mcp: "Use the MCP endpoint: connect Claude Code, Cursor, VS Code or Codex.",
  "skills:read": "List and read skills and personas.",
  "skills:write": "Create, edit and remove skills and personas.",
  "servers:read": "List remote MCP servers and their tools (secrets stay masked).",
  "servers:write": "Add, edit, test and remove remote MCP servers.",
  admin: "Manage API tokens, workspaces and team members.",
};

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value);
}

/** A principal holding `granted` may act where `required` is asked; `null` asks only for a signed-in principal. */
export function hasScope(granted: readonly Scope[], required: Scope | null): boolean {
  return required === null || granted.includes(required);
}

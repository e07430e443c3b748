// Shapes of the REST API's responses, as the console reads them.

export type User = {
  id: string;
  email: string;
  name: string | null;
  createdAt: string;
};

export type WorkspaceRole = "owner" | "admin" | "member";

export type Workspace = {
  id: string;
  slug: string;
  name: string;
  kind: "personal" | "team";
  role: WorkspaceRole;
};

export type Me = {
  user: User;
  workspaces: Workspace[];
  principal: { kind: "session" | "token" | "oauth"; scopes: string[] };
  csrfToken: string | null;
  /** Whether upstream MCP servers may be on this machine (LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1). */
  instance: { loopbackUpstreams: boolean };
};

export type AuthResult = {
  user: User;
  csrfToken: string;
};

export type SetupStatus = { required: boolean };

export type TokenStatus = "active" | "revoked" | "expired";

export type ApiToken = {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  workspace: { slug: string; name: string } | null;
  createdAt: string;
  expiresAt: string | null;
  lastUsedAt: string | null;
  revokedAt: string | null;
  status: TokenStatus;
};

export type TokenList = { tokens: ApiToken[] };

export type CreatedToken = { token: ApiToken; secret: string };

export type CreateTokenInput = {
  name: string;
  scopes: string[];
  expiresInDays?: number;
  workspace?: string;
};

// The shapes of the OAuth consent and connected-apps routes (api/src/schemas/oauth.ts).

export type OAuthClient = {
  name: string;
  kind: "dynamic" | "metadata";
  clientId: string;
  domain: string;
  verified: boolean;
  uri: string | null;
};

export type AuthorizationRequest = {
  id: string;
  client: OAuthClient;
  redirectUri: string;
  resource: string;
  scopes: { name: string; description: string }[];
  expiresAt: string;
};

export type Mode = "agent" | "plan" | "goal";

export type ConnectedApp = {
  id: string;
  client: OAuthClient;
  resource: string;
  scopes: string[];
  workspace: { slug: string; name: string } | null;
  project: string | null;
  mode: Mode | null;
  createdAt: string;
  lastUsedAt: string | null;
};

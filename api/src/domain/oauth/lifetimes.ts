/** Lifetimes of what the authorization server issues (documented in docs/http-api.md). */
export const AUTHORIZATION_REQUEST_SECONDS = 10 * 60;
export const AUTHORIZATION_CODE_SECONDS = 60;
export const ACCESS_TOKEN_SECONDS = 60 * 60;
export const REFRESH_TOKEN_SECONDS = 30 * 86_400;

import { SCOPE_DESCRIPTIONS, SCOPES, type Scope } from "../scopes";
import type { ResourceKind } from "./resource";

/** The scopes an OAuth client may ask for at an MCP URL. Connectors use the MCP endpoint, nothing else. */
export const OAUTH_SCOPES = ["mcp"] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

/** What the consent page says each scope lets a connected app do. */
export const OAUTH_SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  mcp: "use your MCP URL as you: list and read your skills, create and edit them (agent mode only), and call your servers' tools",
};

export const ACCESS_TOKEN_PREFIX = "loa_";
export const REFRESH_TOKEN_PREFIX = "lor_";
export const CODE_PREFIX = "loc_";

export function isOAuthScope(value: string): value is OAuthScope {
  return (OAUTH_SCOPES as readonly string[]).includes(value);
}

/**
 * What a client may ask for at a resource: `mcp` at an MCP URL; at the REST API (the `loadout`
 * CLI) the API's own scopes, which an API token could hold.
 */
export function grantableScopes(kind: ResourceKind): readonly Scope[] {
  return kind === "api" ? SCOPES : OAUTH_SCOPES;
}

/** The consent page's sentence for a scope. */
export function scopeDescription(scope: string): string {
  if (isOAuthScope(scope)) return OAUTH_SCOPE_DESCRIPTIONS[scope];
  return Object.hasOwn(SCOPE_DESCRIPTIONS, scope) ? SCOPE_DESCRIPTIONS[scope as Scope] : scope;
}

/** Cheap shape check before any database work. */
export function looksLikeOAuthSecret(value: string, prefix: string): boolean {
  return value.length === prefix.length + 43 && value.startsWith(prefix) && /^[0-9A-Za-z]+$/.test(value.slice(4));
}

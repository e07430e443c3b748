/**
 * What Loadout accepts from an upstream's OAuth discovery (PROTOCOLS.md §5.4): the protected
 * resource must be the server the user gave, and its authorization server must offer the
 * authorization code flow with PKCE S256 on endpoints the deployment may reach.
 */

/**
 * Whether a protected resource's `resource` names the server at `serverUrl`: the same origin, and
 * its path the server's or a parent of it (RFC 9728 §3.3, as the SDK's checkResourceAllowed reads it).
 */
export function resourceMatches(resource: string, serverUrl: string): boolean {
  let given: URL;
  let server: URL;
  try {
    given = new URL(resource);
    server = new URL(serverUrl);
  } catch {
    return false;
  }
  if (given.origin !== server.origin) return false;
  const base = given.pathname.endsWith("/") ? given.pathname : `${given.pathname}/`;
  return given.pathname === server.pathname || server.pathname.startsWith(base);
}

export interface AuthorizationServerFacts {
  issuer?: unknown;
  authorization_endpoint?: unknown;
  token_endpoint?: unknown;
  response_types_supported?: unknown;
  code_challenge_methods_supported?: unknown;
}

const list = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];

/** An endpoint the deployment may call: https, or http on loopback where loopback upstreams are allowed. */
export function endpointProblem(url: unknown, name: string, allowLoopback: boolean): string | null {
  if (typeof url !== "string") return `its metadata names no ${name}`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `its ${name} is not a URL`;
  }
  if (parsed.protocol === "https:") return null;
  if (allowLoopback && parsed.protocol === "http:" && /^(127\.\d+\.\d+\.\d+|\[::1\]|localhost)$/.test(parsed.hostname))
    return null;
  return `its ${name} (${parsed.origin}) is not https`;
}

/**
 * Why Loadout cannot sign in at this authorization server, or null. Without
 * `code_challenge_methods_supported` listing S256 the client MUST refuse (§5.1): PKCE could
 * otherwise be downgraded to nothing.
 */
export function authorizationServerProblem(metadata: AuthorizationServerFacts, allowLoopback: boolean): string | null {
  const methods = list(metadata.code_challenge_methods_supported);
  if (methods.length === 0)
    return "its metadata does not list code_challenge_methods_supported, so PKCE cannot be relied on";
  if (!methods.includes("S256")) return `it does not support PKCE with S256 (only ${methods.join(", ")})`;
  const types = list(metadata.response_types_supported);
  if (types.length > 0 && !types.includes("code")) return "it does not offer the authorization code flow";
  return (
    endpointProblem(metadata.authorization_endpoint, "authorization_endpoint", allowLoopback) ??
    endpointProblem(metadata.token_endpoint, "token_endpoint", allowLoopback)
  );
}

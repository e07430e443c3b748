/**
 * Resource indicators (RFC 8707): the MCP URLs Loadout answers for, and the one canonical
 * spelling tokens are bound to (lowercase scheme and host, no query, no fragment, no trailing
 * slash). The audience check at /mcp compares canonical strings.
 */
const MCP_PATHS = [/^\/mcp$/, /^\/mcp\/e\/[A-Za-z0-9_-]{1,64}$/, /^\/mcp\/s\/[a-z0-9-]{1,64}\/[a-z0-9-]{1,64}$/];

export function isMcpResourcePath(path: string): boolean {
  return MCP_PATHS.some((p) => p.test(path));
}

/**
 * The REST API as a protected resource: what a native client such as the `loadout` CLI asks for,
 * with the API's scopes. Tokens bound to it are accepted by `/v1/*` and by no MCP URL.
 */
export const API_RESOURCE_PATH = "/v1";

export type ResourceKind = "mcp" | "api";

export function resourceKind(canonical: string): ResourceKind {
  try {
    return new URL(canonical).pathname === API_RESOURCE_PATH ? "api" : "mcp";
  } catch {
    return "mcp";
  }
}

/**
 * The canonical resource for `raw`, if it names one of Loadout's MCP URLs (or its REST API) on
 * `issuer`'s origin; otherwise a reason it does not.
 */
export function canonicalResource(
  raw: string,
  issuer: string,
): { resource: string; kind: ResourceKind } | { problem: string } {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return { problem: "resource must be an absolute URL (the MCP server URL)" };
  }
  if (url.hash !== "" || raw.includes("#")) return { problem: "resource must not have a fragment" };
  if (url.search !== "") return { problem: "resource must not have a query; send the MCP URL without ?…" };
  const path = url.pathname.replace(/\/$/, "");
  // The API resource as spelled, not as dot segments resolve (`/mcp/../v1` names no resource).
  const api = path === API_RESOURCE_PATH && !/\/\.\.?(\/|$)/.test(raw);
  if (url.origin !== new URL(issuer).origin || !(api || isMcpResourcePath(path))) {
    return { problem: `resource ${raw} is not an MCP URL of this server; use ${issuer}/mcp` };
  }
  return { resource: `${url.origin}${path}`, kind: api ? "api" : "mcp" };
}

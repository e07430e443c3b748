/**
 * The paths the API answers (REST, MCP, OAuth, health); everything else on the origin is the
 * console's. A request on an API path that matches nothing gets the JSON error; any other GET that
 * matches no console file gets the console's own not-found page. The Worker's assets config lists
 * the same prefixes as `run_worker_first` (a test compares them).
 */
export const API_PATH_PREFIXES = ["/v1", "/mcp", "/oauth", "/.well-known", "/healthz"] as const;

/** Whether `path` (a URL's pathname) belongs to the API rather than the console. */
export function isApiPath(path: string): boolean {
  return API_PATH_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

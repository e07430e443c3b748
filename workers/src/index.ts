/**
 * The upstream proxy: MCP client connections to users' remote servers. Runtime-agnostic: the
 * caller passes the fetch (SSRF-guarded) and the secrets, so the same code runs in-process on Node
 * and, later, behind a service binding on Workers.
 */
export { type FetchGuard, guardedFetch, UpstreamRefused } from "./guarded-fetch";
export {
  connectUpstream,
  MAX_TOOLS_PER_SERVER,
  type UpstreamConfig,
  type UpstreamConnection,
  type UpstreamTool,
} from "./upstream";

/**
 * The upstream proxy: MCP client connections to users' remote servers. Runtime-agnostic: the
 * caller passes the fetch (SSRF-guarded) and the opened secrets, so the same code runs in-process
 * on Node and, later, behind a service binding on Workers.
 */
export type { CallToolResult } from "@modelcontextprotocol/client";
export { Cancellation } from "./cancellation";
export type { AnswerBody } from "./direct-answer";
export { DEFAULT_DOH_URL, DohFailed, type DohResolverOptions, dohResolver } from "./doh-resolver";
export {
  checkUpstreamUrl,
  type FetchGuard,
  guardedFetch,
  guardedPost,
  type RememberedChecks,
  UpstreamRefused,
} from "./guarded-fetch";
export { KEPT_MS, MAX_TAKE_MS, Mailbox } from "./mailbox";
export {
  MAX_TOOLS_PER_SERVER,
  needsInput,
  UpstreamFailed,
  UpstreamRpcError,
  UpstreamUnauthorized,
  UpstreamUnavailable,
} from "./outcomes";
export { planAllows, WHOLE_TOOL } from "./plan";
export {
  type CallOptions,
  type DirectTool,
  type PoolOptions,
  postThrough,
  type RelatedNotification,
  type RequestOptions,
  UpstreamPool,
  type UpstreamPost,
  type UpstreamTarget,
  type UpstreamTool,
} from "./pool";
export {
  credentialIdentity,
  sessionObjectName,
  type ToolListing,
  type UpstreamProxy,
} from "./proxy";
export { type ProxyBinding, ProxyClient, type WireCallOptions, type WireRequestOptions } from "./proxy-client";
export {
  type AuthorizationServerMetadata,
  cappedFetch,
  type DiscoveredAuth,
  discoverUpstreamAuth,
  exchangeAuthorization,
  IssuerMismatchError,
  type OAuthClientInformationMixed,
  type OAuthTokens,
  probeChallenge,
  readChallenge,
  refreshAuthorization,
  registerClient,
  revokeUpstreamToken,
  startAuthorization,
  UpstreamAuthProblem,
  validateAuthorizationResponseIssuer,
} from "./upstream-oauth";

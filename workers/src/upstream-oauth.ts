import {
  type AuthorizationServerMetadata,
  discoverAuthorizationServerMetadata,
  discoverOAuthProtectedResourceMetadata,
  exchangeAuthorization,
  extractWWWAuthenticateParams,
  IssuerMismatchError,
  type OAuthClientInformationMixed,
  type OAuthProtectedResourceMetadata,
  type OAuthTokens,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  validateAuthorizationResponseIssuer,
} from "@modelcontextprotocol/client";
import { UpstreamRefused } from "./guarded-fetch";

/**
 * Loadout as the OAuth client of an upstream MCP server (PROTOCOLS.md §5.4), over the official
 * SDK's discovery, registration, PKCE and token helpers. Runtime-agnostic like the pool: the
 * caller passes the SSRF-guarded fetch, and every request here is capped in size and time.
 */

export type { AuthorizationServerMetadata, OAuthClientInformationMixed, OAuthProtectedResourceMetadata, OAuthTokens };
export {
  exchangeAuthorization,
  IssuerMismatchError,
  refreshAuthorization,
  registerClient,
  startAuthorization,
  validateAuthorizationResponseIssuer,
};

/** Discovery documents and token answers are small: anything larger is refused. */
export const OAUTH_MAX_BYTES = 64 * 1024;
export const OAUTH_TIMEOUT_MS = 8_000;

/** Discovery could not reach a usable authorization server: the message says why, for the user. */
export class UpstreamAuthProblem extends Error {
  override readonly name = "UpstreamAuthProblem";
  constructor(
    message: string,
    /** The server publishes no protected-resource metadata and its challenge named none: it may not do OAuth at all. */
    readonly noMetadata = false,
  ) {
    super(message);
  }
}

/**
 * A fetch whose every answer is read whole within `maxBytes` and `timeoutMs` (the SDK reads what
 * it is given without a limit). The caller's own signal still applies.
 */
export function cappedFetch(
  base: typeof fetch,
  maxBytes = OAUTH_MAX_BYTES,
  timeoutMs = OAUTH_TIMEOUT_MS,
): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const controller = new AbortController();
    const timer = setTimeout(
      () => controller.abort(new UpstreamAuthProblem(`no answer within ${timeoutMs / 1000} s`)),
      timeoutMs,
    );
    const given = init?.signal;
    given?.addEventListener("abort", () => controller.abort(given.reason), { once: true });
    try {
      const response = await base(input, { ...init, signal: controller.signal });
      const declared = Number(response.headers.get("content-length") ?? "0");
      if (declared > maxBytes) throw new UpstreamAuthProblem(`an answer was larger than ${maxBytes / 1024} KB`);
      const reader = response.body?.getReader();
      const chunks: Uint8Array[] = [];
      let size = 0;
      if (reader)
        for (let next = await reader.read(); !next.done; next = await reader.read()) {
          size += next.value.byteLength;
          if (size > maxBytes) {
            await reader.cancel().catch(() => {});
            throw new UpstreamAuthProblem(`an answer was larger than ${maxBytes / 1024} KB`);
          }
          chunks.push(next.value);
        }
      const body = new Uint8Array(size);
      let offset = 0;
      for (const chunk of chunks) {
        body.set(chunk, offset);
        offset += chunk.byteLength;
      }
      const empty = response.status === 204 || response.status === 304;
      return new Response(empty ? null : body, {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    } catch (error) {
      if (controller.signal.aborted && controller.signal.reason instanceof UpstreamAuthProblem)
        throw controller.signal.reason;
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }) as typeof fetch;
}

/** What a `WWW-Authenticate` challenge says: the metadata URL, the scope asked for, the error. */
export function readChallenge(header: string | null | undefined): {
  resourceMetadataUrl?: URL;
  scope?: string;
  error?: string;
} {
  if (!header) return {};
  const { resourceMetadataUrl, scope, error } = extractWWWAuthenticateParams(
    new Response(null, { headers: { "www-authenticate": header } }),
  );
  return {
    ...(resourceMetadataUrl ? { resourceMetadataUrl } : {}),
    ...(scope ? { scope } : {}),
    ...(error ? { error } : {}),
  };
}

export interface DiscoveredAuth {
  resource: OAuthProtectedResourceMetadata;
  issuer: string;
  metadata: AuthorizationServerMetadata;
  /** The challenge's scope (authoritative), else the resource's scopes_supported; null when neither says. */
  scope: string | null;
}

const why = (error: unknown) =>
  error instanceof UpstreamRefused || error instanceof UpstreamAuthProblem
    ? error.message
    : error instanceof Error
      ? error.message.slice(0, 200)
      : String(error).slice(0, 200);

/**
 * Discovery from a server's challenge (or none): its protected-resource metadata (the challenge's
 * `resource_metadata`, then the well-known paths), then its first authorization server's metadata
 * (RFC 8414, then OpenID configuration; the document's `issuer` must be the issuer used). The
 * caller checks what it found (resource, PKCE, endpoints) against its own rules.
 */
export async function discoverUpstreamAuth(
  serverUrl: string,
  challenge: string | null,
  fetch: typeof globalThis.fetch,
): Promise<DiscoveredAuth> {
  const capped = cappedFetch(fetch);
  const asked = readChallenge(challenge);
  let resource: OAuthProtectedResourceMetadata;
  try {
    resource = await discoverOAuthProtectedResourceMetadata(
      serverUrl,
      asked.resourceMetadataUrl ? { resourceMetadataUrl: asked.resourceMetadataUrl } : {},
      capped,
    );
  } catch (error) {
    throw new UpstreamAuthProblem(
      `its protected-resource metadata could not be read (${why(error)})`,
      !asked.resourceMetadataUrl,
    );
  }
  const issuer = resource.authorization_servers?.[0];
  if (!issuer) throw new UpstreamAuthProblem("its protected-resource metadata names no authorization server");
  let metadata: AuthorizationServerMetadata | undefined;
  try {
    metadata = await discoverAuthorizationServerMetadata(issuer, { fetchFn: capped });
  } catch (error) {
    if (error instanceof IssuerMismatchError)
      throw new UpstreamAuthProblem(`the authorization server's metadata names another issuer than ${issuer}`);
    throw new UpstreamAuthProblem(`its authorization server ${issuer} could not be reached (${why(error)})`);
  }
  if (!metadata) throw new UpstreamAuthProblem(`its authorization server ${issuer} publishes no metadata`);
  const scope = asked.scope ?? (resource.scopes_supported?.length ? resource.scopes_supported.join(" ") : null);
  return { resource, issuer, metadata, scope };
}

/**
 * The server's challenge to a request without credentials (a POST of `initialize`), or null when
 * it answered without asking for any.
 */
export async function probeChallenge(
  serverUrl: string,
  fetch: typeof globalThis.fetch,
): Promise<{ status: number; challenge: string | null }> {
  const response = await cappedFetch(fetch)(serverUrl, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "loadout", version: "0.1.0" } },
    }),
  }).catch((error: unknown) => {
    throw new UpstreamAuthProblem(`the server could not be reached (${why(error)})`);
  });
  return {
    status: response.status,
    challenge: response.status === 401 || response.status === 403 ? response.headers.get("www-authenticate") : null,
  };
}

/**
 * Revokes a token at the authorization server (RFC 7009), where it offers revocation; failures are
 * the caller's to ignore (the tokens are forgotten either way).
 */
export async function revokeUpstreamToken(
  metadata: AuthorizationServerMetadata,
  client: OAuthClientInformationMixed,
  token: string,
  hint: "refresh_token" | "access_token",
  fetch: typeof globalThis.fetch,
): Promise<boolean> {
  const endpoint = (metadata as { revocation_endpoint?: unknown }).revocation_endpoint;
  if (typeof endpoint !== "string") return false;
  const form = new URLSearchParams({ token, token_type_hint: hint, client_id: client.client_id });
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded" };
  if (client.client_secret) headers.authorization = `Basic ${btoa(`${client.client_id}:${client.client_secret}`)}`;
  const response = await cappedFetch(fetch)(endpoint, { method: "POST", headers, body: form.toString() });
  return response.ok;
}

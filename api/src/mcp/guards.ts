import type { Database } from "@loadout/db";
import { hasScope } from "../domain/scopes";
import { AppError, ERROR_CODES } from "../errors";
import type { AppDeps } from "../http/env";
import { requestOrigin } from "../http/origin";
import { principalFromBearer, type ResolvedBearer } from "../services/auth/resolve-bearer";
import type { HotCaches } from "../services/cache/hot";
import type { SessionInputs } from "../services/mcp/session";
import { jsonReply, type McpReply, type McpTarget } from "./exchange";

/** A JSON-RPC error for a request refused before any MCP method runs (auth, origin, bad headers). */
export function rpcError(requestId: string, error: AppError): McpReply {
  return jsonReply(
    error.status,
    JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: ERROR_CODES[error.code].jsonRpc,
        message: error.message,
        data: { code: error.code, requestId },
      },
    }),
    error.headers,
  );
}

/** The origin clients reach this server at, from the session's inputs (see requestOrigin). */
export function originOf(deps: AppDeps, inputs: SessionInputs): string {
  return requestOrigin({
    get: () => deps,
    req: { url: inputs.url, header: (name) => (name === "host" ? inputs.host : inputs.scheme) || undefined },
  });
}

/**
 * Why this request may not reach the endpoint at all, before its token is read: a Host this server
 * does not answer to (when it was told which), or a browser page of another site (DNS rebinding).
 */
export function refusedHost(deps: AppDeps, inputs: SessionInputs, origin: string): AppError | null {
  const allowedHosts = deps.allowedHosts;
  if (allowedHosts) {
    const hostname = hostnameOf(inputs.host || "invalid");
    if (!allowedHosts.includes(hostname))
      return new AppError(
        "forbidden",
        `Host ${hostname} is not one this server answers to; set LOADOUT_PUBLIC_URL to the address you use.`,
      );
  }
  const sent = inputs.origin;
  if (sent && sent !== "null" && originHost(sent) !== new URL(origin).host)
    return new AppError("forbidden", `Origin ${sent} may not use this MCP endpoint.`);
  return null;
}

function originHost(origin: string): string | null {
  try {
    return new URL(origin).host;
  } catch {
    return null;
  }
}

/** Host headers seen, by their hostname: the same few on every request, so each is parsed once. */
const hostnames = new Map<string, string>();
function hostnameOf(host: string): string {
  let hostname = hostnames.get(host);
  if (hostname === undefined) {
    hostname = new URL(`http://${host}`).hostname;
    // Any client can send any Host: the map is kept small.
    if (hostnames.size >= 256) hostnames.clear();
    hostnames.set(host, hostname);
  }
  return hostname;
}

/** The Bearer challenge of a refusal: where this MCP URL's protected-resource metadata is. */
export function challengeFor(origin: string, target: McpTarget): string {
  const { endpointId, single } = target;
  const path = endpointId ? `/mcp/e/${endpointId}` : single ? `/mcp/s/${single.ws}/${single.slug}` : "/mcp";
  return `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${path}", scope="mcp"`;
}

/** The bearer token of an Authorization header, or null. */
export function bearerOf(authorization: string | undefined): string | null {
  return /^Bearer[ ]+(\S+)\s*$/i.exec(authorization ?? "")?.[1] ?? null;
}

/**
 * The principal a bearer token stands for, checked for this MCP URL: a known, live token (an API
 * token, or an OAuth access token issued for this very URL, RFC 8707) with the `mcp` scope. A
 * refusal carries the challenge that tells the client where to get one.
 */
export async function authenticate(
  db: Database,
  hot: HotCaches,
  secret: string,
  cacheKey: string | undefined,
  now: Date,
  origin: string,
  inputs: SessionInputs,
  target: McpTarget,
): Promise<ResolvedBearer | AppError> {
  const challenge = challengeFor(origin, target);
  let resolved: ResolvedBearer;
  try {
    resolved = await principalFromBearer(db, secret, now, hot, cacheKey);
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    return new AppError(error.code, error.message, {
      headers: { "WWW-Authenticate": `${challenge}, error="invalid_token"` },
    });
  }
  if (resolved.audience !== null && resolved.audience !== `${new URL(origin).origin}${pathOf(inputs.url)}`)
    return new AppError(
      "unauthorized",
      `This access token was issued for ${resolved.audience}, not this URL. Connect the app to this URL.`,
      { headers: { "WWW-Authenticate": `${challenge}, error="invalid_token"` } },
    );
  if (!hasScope(resolved.principal.scopes, "mcp"))
    return new AppError("insufficient_scope", 'This token lacks the "mcp" scope. Create a token with it.', {
      headers: { "WWW-Authenticate": `${challenge}, error="insufficient_scope"` },
    });
  return resolved;
}

/** A URL's path without a trailing slash, as tokens are bound to it. */
function pathOf(url: string): string {
  return new URL(url).pathname.replace(/\/$/, "");
}

/** The refusal of a request that carries no bearer token, with the challenge. */
export function missingToken(origin: string, target: McpTarget): AppError {
  return new AppError(
    "unauthorized",
    "This MCP endpoint needs a Loadout API token with the mcp scope (`Authorization: Bearer lo_…`), or an OAuth access token from connecting the app.",
    { headers: { "WWW-Authenticate": challengeFor(origin, target) } },
  );
}

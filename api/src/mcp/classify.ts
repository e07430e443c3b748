/**
 * Which requests the pipeline answers itself (see pipeline.ts): a `tools/call` in its plainest
 * form, on the stateless 2026-07-28 revision or from a 2025-era client (served statelessly), and a
 * plain 2026-07-28 `tools/list`. They are answered without building the SDK's per-request server
 * and transport, which cost more CPU than the call (measured: 1.8 ms added p50 for a 2025 client
 * on the SDK's path against 0.5 ms without it, BENCHMARKS.md).
 * Only requests the SDK would accept and answer as one JSON body qualify; anything else (another
 * revision, a progress token, a header that disagrees, a task, an unusual envelope) takes the
 * SDK's path, which also writes every error. The answer has the SDK's exact shape, as one JSON
 * body on both eras (see encode.ts); a test holds the two lanes to the same answers.
 *
 * Written by hand because the SDK exposes no entry point below its per-request server.
 */

const REVISION = "2026-07-28";
/** The 2025 revisions a stateless 2025-era request may name in its MCP-Protocol-Version header. */
const LEGACY_REVISIONS = new Set(["2025-03-26", "2025-06-18", "2025-11-25"]);
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO]);

export interface PlainCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
  clientCapabilities: Record<string, unknown>;
  /** A 2026-07-28 request, or a 2025-era one (either answered as one JSON body: see encode.ts). */
  era: "modern" | "legacy";
}

export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));

/** The call, when this request may take the fast lane; null sends it down the SDK's path. */
export function plainCall(
  httpMethod: string,
  header: (name: string) => string | null | undefined,
  body: unknown,
): PlainCall | null {
  const request = plainRequest(httpMethod, header, body, "tools/call") ?? plainLegacyRequest(httpMethod, header, body);
  if (!request) return null;
  const { id, params, capabilities, era } = request;
  if (!onlyKeys(params, era === "modern" ? ["name", "arguments", "_meta"] : ["name", "arguments"])) return null;
  const { name, arguments: args } = params;
  if (typeof name !== "string" || name === "") return null;
  if (args !== undefined && !isPlainObject(args)) return null;
  if (era === "modern" && header("mcp-name")?.trim() !== name) return null;
  return { id, name, args, clientCapabilities: capabilities, era };
}

/**
 * A plain `tools/call` of a 2025-era client after its handshake: the negotiated revision in the
 * header, no envelope, no `_meta` (a progress token needs the SDK's stream), none of the 2026-07-28
 * headers. (Its session id, Loadout's own, only names the client: see legacy-session.ts.)
 */
function plainLegacyRequest(
  httpMethod: string,
  header: (name: string) => string | null | undefined,
  body: unknown,
): {
  id: string | number;
  params: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  era: "legacy";
} | null {
  if (httpMethod !== "POST" || !transportHeadersAgree(header)) return null;
  if (!LEGACY_REVISIONS.has(header("mcp-protocol-version") ?? "")) return null;
  if (header("mcp-method") != null || header("mcp-name") != null) return null;
  if (!isPlainObject(body) || !onlyKeys(body, ["jsonrpc", "id", "method", "params"])) return null;
  if (body.jsonrpc !== "2.0" || body.method !== "tools/call") return null;
  const id = body.id;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return null;
  if (!isPlainObject(body.params)) return null;
  return { id, params: body.params, capabilities: {}, era: "legacy" };
}

/**
 * A 2025-era client's notification, as its SDK sends `notifications/initialized` after the
 * handshake: the negotiated revision in the header, none of the 2026-07-28 headers, no `_meta`. The
 * SDK's stateless transport answers it 202 with no body and its per-request server drops it
 * (Loadout's servers handle no client notification; `notifications/cancelled` and a client's
 * answers are taken before this, see pipeline.ts). In the peers' setup, one cost the gateway
 * about 0.7 ms of CPU through the SDK's path, as much as a proxied call.
 */
export function plainLegacyNotification(
  httpMethod: string,
  header: (name: string) => string | null | undefined,
  body: unknown,
): boolean {
  if (httpMethod !== "POST" || !transportHeadersAgree(header)) return false;
  if (!LEGACY_REVISIONS.has(header("mcp-protocol-version") ?? "")) return false;
  if (header("mcp-method") != null || header("mcp-name") != null) return false;
  if (!isPlainObject(body) || !onlyKeys(body, ["jsonrpc", "method", "params"])) return false;
  if (body.jsonrpc !== "2.0" || typeof body.method !== "string" || !body.method.startsWith("notifications/"))
    return false;
  return body.params === undefined || (isPlainObject(body.params) && !("_meta" in body.params));
}

/** The content type and Accept every streamable HTTP POST must carry. */
function transportHeadersAgree(header: (name: string) => string | null | undefined): boolean {
  if (!/^application\/json\s*(;|$)/i.test(header("content-type") ?? "")) return false;
  const accept = header("accept") ?? "";
  return accept.includes("application/json") && accept.includes("text/event-stream");
}

/** The id of a plain 2026-07-28 `tools/list` (no cursor), whose answer may be served from memory. */
export function plainListing(
  httpMethod: string,
  header: (name: string) => string | null | undefined,
  body: unknown,
): { id: string | number } | null {
  const request = plainRequest(httpMethod, header, body, "tools/list");
  if (!request || !onlyKeys(request.params, ["_meta"]) || header("mcp-name") != null) return null;
  return { id: request.id };
}

/** The checks every fast-lane request passes: transport headers, JSON-RPC shape, the envelope. */
function plainRequest(
  httpMethod: string,
  header: (name: string) => string | null | undefined,
  body: unknown,
  method: string,
): {
  id: string | number;
  params: Record<string, unknown>;
  capabilities: Record<string, unknown>;
  era: "modern";
} | null {
  if (httpMethod !== "POST" || !transportHeadersAgree(header)) return null;
  if (header("mcp-protocol-version") !== REVISION || header("mcp-method") !== method) return null;

  if (!isPlainObject(body) || !onlyKeys(body, ["jsonrpc", "id", "method", "params"])) return null;
  if (body.jsonrpc !== "2.0" || body.method !== method) return null;
  const id = body.id;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)))) return null;
  const params = body.params;
  if (!isPlainObject(params)) return null;

  const meta = params._meta;
  if (!isPlainObject(meta) || !Object.keys(meta).every((key) => ENVELOPE_KEYS.has(key))) return null;
  if (meta[PROTOCOL_VERSION] !== REVISION) return null;
  const capabilities = meta[CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities) || !Object.values(capabilities).every(isPlainObject)) return null;
  const info = meta[CLIENT_INFO];
  if (info !== undefined) {
    if (!isPlainObject(info) || typeof info.name !== "string" || typeof info.version !== "string") return null;
  }
  return { id, params, capabilities, era: "modern" };
}

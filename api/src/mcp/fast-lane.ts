import { AppError, publicError } from "../errors";
import { describeError } from "../http/errors";
import type { ActionContext } from "../services/context";

/**
 * The fast lane: a `tools/call` in its plainest form, on the stateless 2026-07-28 revision or from a
 * 2025-era client (served statelessly), is answered without building the SDK's per-request server
 * and transport (which cost more CPU than the call: measured 1.8 ms added p50 for a 2025 client on
 * the SDK's path against 0.5 ms in the lane, BENCHMARKS.md).
 * Only requests the SDK would accept and answer as one JSON body qualify; anything else (another
 * revision, a progress token, a header that disagrees, a task, an unusual envelope) takes the
 * SDK's path, which also writes every error. The answer has the SDK's exact shape; a test holds
 * the two lanes to the same answers.
 *
 * Written by hand because the SDK exposes no entry point below its per-request server.
 */

const REVISION = "2026-07-28";
/** The 2025 revisions a stateless 2025-era request may name in its MCP-Protocol-Version header. */
const LEGACY_REVISIONS = new Set(["2025-03-26", "2025-06-18", "2025-11-25"]);
const PROTOCOL_VERSION = "io.modelcontextprotocol/protocolVersion";
const CLIENT_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT_INFO = "io.modelcontextprotocol/clientInfo";
const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";
const ENVELOPE_KEYS = new Set([PROTOCOL_VERSION, CLIENT_CAPABILITIES, CLIENT_INFO]);

export interface FastCall {
  id: string | number;
  name: string;
  args: Record<string, unknown> | undefined;
  clientCapabilities: Record<string, unknown>;
  /** A 2026-07-28 request, or a 2025-era one (answered as the SDK answers those: one SSE event). */
  era: "modern" | "legacy";
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

const onlyKeys = (value: Record<string, unknown>, allowed: readonly string[]) =>
  Object.keys(value).every((key) => allowed.includes(key));

/** The call, when this request may take the fast lane; null sends it down the SDK's path. */
export function fastLaneCall(
  httpMethod: string,
  header: (name: string) => string | null | undefined,
  body: unknown,
): FastCall | null {
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

/** The content type and Accept every streamable HTTP POST must carry. */
function transportHeadersAgree(header: (name: string) => string | null | undefined): boolean {
  if (!/^application\/json\s*(;|$)/i.test(header("content-type") ?? "")) return false;
  const accept = header("accept") ?? "";
  return accept.includes("application/json") && accept.includes("text/event-stream");
}

/** The id of a plain 2026-07-28 `tools/list` (no cursor), whose answer may be served from memory. */
export function fastLaneList(
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

/** A JSON-RPC answer around a result already serialized (a remembered listing). */
export function answerWithResult(id: string | number, resultJson: string): string {
  return `{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`;
}

interface ToolResultLike {
  content?: { type: string; text?: string }[];
  structuredContent?: unknown;
  _meta?: unknown;
  resultType?: unknown;
  [key: string]: unknown;
}

/**
 * The result of a fast-lane call, serialized as the SDK encodes a tool result on 2026-07-28: a
 * text fallback for structured content that is not an object, `resultType`, and the server's
 * identity under `_meta`. The same for every call that gets this result; `answerWithResult` wraps
 * it in the JSON-RPC answer.
 */
export function fastLaneResultJson(
  result: ToolResultLike,
  serverInfo: { name: string; title?: string; version: string },
): string {
  let projected: ToolResultLike = result;
  const structured = result.structuredContent;
  if (
    structured !== undefined &&
    !isPlainObject(structured) &&
    !(result.content?.some((c) => c.type === "text") ?? false)
  ) {
    projected = { ...result, content: [...(result.content ?? []), { type: "text", text: JSON.stringify(structured) }] };
  }
  // The common result, with neither: its own encoding with the two added at its end, the order
  // the copy below gives them, rather than a copy encoded.
  if (!("_meta" in projected) && !("resultType" in projected)) {
    const json = JSON.stringify(projected);
    return `${json.slice(0, -1)}${json.length > 2 ? "," : ""}"resultType":"complete","_meta":${identityJson(serverInfo)}}`;
  }
  const meta = projected._meta;
  const typed = projected.resultType !== undefined;
  // Whether `_meta` stays as it is: absent or a plain object without the server's identity gets it.
  const identified = meta !== undefined && !(isPlainObject(meta) && meta[SERVER_INFO_KEY] === undefined);
  if (typed && identified) return JSON.stringify(projected);
  // One copy, the keys in the order the SDK writes them: added ones last, `_meta` kept in place.
  const out: ToolResultLike = { ...projected };
  if (!typed) out.resultType = "complete";
  if (!identified) out._meta = { ...(meta as Record<string, unknown> | undefined), [SERVER_INFO_KEY]: serverInfo };
  return JSON.stringify(out);
}

/** `_meta` holding only the server's identity, encoded once per identity. */
const identities = new WeakMap<object, string>();
function identityJson(serverInfo: { name: string; title?: string; version: string }): string {
  let json = identities.get(serverInfo);
  if (json === undefined) {
    json = JSON.stringify({ [SERVER_INFO_KEY]: serverInfo });
    identities.set(serverInfo, json);
  }
  return json;
}

/**
 * The result of a fast-lane call from a 2025-era client, as the SDK's 2025 codec encodes it: a text
 * fallback for structured content that is not an object, and such content wrapped as `{ result }`
 * (no `resultType`, no server identity: those are 2026-07-28's).
 */
export function legacyResultJson(result: ToolResultLike): string {
  const structured = result.structuredContent;
  if (structured === undefined || isPlainObject(structured)) return JSON.stringify(result);
  const content = result.content?.some((c) => c.type === "text")
    ? result.content
    : [...(result.content ?? []), { type: "text", text: JSON.stringify(structured) }];
  return JSON.stringify({ ...result, content, structuredContent: { result: structured } });
}

/**
 * What the SDK's stateless 2025 transport answers a request with: the JSON-RPC answer as one SSE
 * event, and these headers.
 */
export const LEGACY_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
export const legacyEvent = (answerJson: string) => `event: message\ndata: ${answerJson}\n\n`;

/**
 * A thrown error as a tool result. An `AppError` says what was wrong; anything else (a driver
 * error quoting SQL and parameters, a bug) says only that it failed, with the request id, and
 * its detail goes to the log.
 */
export function toolError(
  error: unknown,
  ctx: Pick<ActionContext, "requestId" | "logger">,
): { content: { type: "text"; text: string }[]; isError: true } {
  if (!(error instanceof AppError))
    ctx.logger?.log("error", "tool call failed", { requestId: ctx.requestId, error: describeError(error) });
  const shown = publicError(error);
  const text = shown.code === "internal" ? `${shown.message} (request id ${ctx.requestId})` : shown.message;
  return { content: [{ type: "text", text }], isError: true };
}

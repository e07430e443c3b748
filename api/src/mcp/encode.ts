/**
 * Answers as the SDK's stateless transports encode them, written by the pipeline for the requests
 * it answers itself (see classify.ts): a test holds them to the SDK's (test/src/mcp/fast-lane.test.ts).
 */

import type { UpstreamRpcError } from "@loadout/workers";
import { isPlainObject, type PlainCall } from "./classify";
import { jsonReply, type McpReply } from "./exchange";

const SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo";

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
export function modernResultJson(
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
 * What the SDK's stateless 2025 transport answers every request with: the JSON-RPC answer as one
 * SSE event, and these headers. The pipeline streams so only where something goes before the
 * answer (see legacy-input.ts). Its own answers are one JSON body on both eras, which is what the
 * SDK's 2026-07-28 transport picks ("auto") when nothing streams first, and what a 2025 client
 * must accept too. Reading an event stream costs the client more than a JSON body, and the gateway
 * writes three more headers and reads its own answer again for the call log: measured on the peers'
 * setup (server-everything's echo through `/mcp`, the SDK v2 client on its 2025 handshake, 20
 * clients), the client spent 0.53–0.57 ms of CPU per call on one SSE event and 0.42 ms on one JSON
 * body, the gateway 0.24–0.28 ms and 0.22 ms.
 */
export const LEGACY_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  connection: "keep-alive",
  "x-accel-buffering": "no",
};
export const legacyEvent = (answerJson: string) => `event: message\ndata: ${answerJson}\n\n`;

/**
 * An upstream's JSON-RPC error relayed as the answer to the client's request: in band (HTTP 200),
 * as the SDK answers a handler's error, except -32021, whose 400 the 2026-07-28 revision requires.
 */
export function rpcErrorReply(call: Pick<PlainCall, "id" | "era">, error: UpstreamRpcError): McpReply {
  return jsonReply(
    error.code === -32021 && call.era === "modern" ? 400 : 200,
    JSON.stringify({
      jsonrpc: "2.0",
      id: call.id,
      error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
    }),
  );
}

/**
 * A tool result as the SDK encodes it in the call's era. A result shared between calls (see
 * callSkillsTool) is encoded once per era, not on every call.
 */
const encoded = { modern: new WeakMap<object, string>(), legacy: new WeakMap<object, string>() };
export function resultJson(
  call: Pick<PlainCall, "era">,
  result: ToolResultLike,
  serverInfo: { name: string; title?: string; version: string },
  shared: boolean,
): string {
  const encode = () => (call.era === "modern" ? modernResultJson(result, serverInfo) : legacyResultJson(result));
  if (!shared) return encode();
  let json = encoded[call.era].get(result);
  if (json === undefined) {
    json = encode();
    encoded[call.era].set(result, json);
  }
  return json;
}

import type { AppVariables } from "../http/env";

/**
 * What the pipeline reads of a request and sets for its scope: Hono's context has it, and so does
 * the Node host's adapter, which answers without Hono (see entry/node-mcp-adapter.ts).
 */
export interface McpContext {
  req: {
    url: string;
    method: string;
    path: string;
    header(name: string): string | undefined;
    query(name: string): string | undefined;
  };
  get<K extends keyof AppVariables>(key: K): AppVariables[K];
  set<K extends keyof AppVariables>(key: K, value: AppVariables[K]): void;
}

/** The request's body and its web form, which each host reaches its own way. */
export interface McpBody {
  /** The body's bytes; an AppError (payload_too_large) past `limit`. */
  read(limit: number): Promise<Uint8Array>;
  /** Aborted when the client goes away. */
  signal(): AbortSignal;
  /** Where the host can say it without a signal: calls the listener when the client goes away. */
  whenGone?(listener: () => void): void;
  /** The request as a web Request, for the SDK's handler; its body is read first. */
  web(): Request;
}

/** A `/mcp/s/{ws}/{slug}` URL's parts. */
export interface SingleServerPath {
  ws: string;
  slug: string;
}

/** Which MCP URL a request came to: `/mcp`, a saved endpoint's, or a single server's. */
export interface McpTarget {
  endpointId: string | null;
  single: SingleServerPath | null;
}

/** One MCP request as a host hands it to the pipeline (see handleMcp). */
export interface McpExchange {
  c: McpContext;
  io: McpBody;
  target: McpTarget;
}

/** An answer the pipeline wrote itself, or the SDK handler's. */
export type McpReply = { status: number; headers: Record<string, string>; payload: string } | Response;

export const jsonReply = (status: number, payload: string, headers: Record<string, string> = {}): McpReply => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  payload,
});
export const isWebReply = (reply: McpReply): reply is Response => !("payload" in reply);
export const contentTypeOf = (reply: McpReply) =>
  (isWebReply(reply) ? reply.headers.get("content-type") : reply.headers["content-type"]) ?? "";

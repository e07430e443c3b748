import type { CallToolResult } from "@modelcontextprotocol/client";

/**
 * What the pool's callers read of an upstream call's outcome, without the pool itself: its
 * errors, its limits and its refusals. Kept apart so that code that only reads outcomes (the api
 * Worker, which builds no pool) does not bundle the MCP client.
 */

/** Tools per server beyond which the rest are not offered (DESIGN.md, "Remote MCP servers"). */
export const MAX_TOOLS_PER_SERVER = 64;

/** The upstream could not be reached or refused the handshake: no call was sent. */
export class UpstreamUnavailable extends Error {
  override readonly name: string = "UpstreamUnavailable";
}

/**
 * The upstream refused the credentials (401), or wants a wider scope (403 with
 * `insufficient_scope`): nothing ran. `challenge` is its WWW-Authenticate header, where it sent one.
 */
export class UpstreamUnauthorized extends UpstreamUnavailable {
  override readonly name = "UpstreamUnauthorized";
  constructor(
    message: string,
    readonly status: 401 | 403,
    readonly challenge: string | null,
  ) {
    super(message);
  }
}

/**
 * The upstream answered with a JSON-RPC error: its definite answer (the connection is fine), which
 * a faithful proxy relays to the client as the same error rather than as a tool result.
 */
export class UpstreamRpcError extends Error {
  override readonly name = "UpstreamRpcError";
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/**
 * A request was sent but no answer came back (a timeout, the client leaving, a broken stream, an
 * answer that is not JSON-RPC). The message says so for the agent; the request may have acted.
 */
export class UpstreamFailed extends Error {
  override readonly name = "UpstreamFailed";
}

export const errorResult = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/** An upstream wanted input (a confirmation, say) that this call cannot carry back to the client. */
export const needsInput = (target: { name: string }, tool: string): CallToolResult =>
  errorResult(
    `${target.name} needs input from you to run ${tool} (such as a confirmation). Loadout passes such requests through to clients that declare they can answer them (elicitation, sampling); this client does not.`,
  );

import { UpstreamRpcError } from "@loadout/workers";
import { ProtocolError } from "@modelcontextprotocol/server";
import {
  AppError,
  DatabaseUnavailable,
  databaseUnavailableError,
  describeError,
  ERROR_CODES,
  publicError,
} from "../errors";
import type { ActionContext } from "../services/context";
import { databaseUnavailable } from "../services/db-errors";

/** A tool's result as Loadout's own tools give it: text, with structured content where there is some. */
export type ToolResult = {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

export const textResult = (value: string, structured?: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: value }],
  ...(structured ? { structuredContent: structured } : {}),
});

/** A refusal the user can act on: what was wrong, as a tool error result. */
export const failure = (message: string): ToolResult => ({ content: [{ type: "text", text: message }], isError: true });

/**
 * A thrown error as a tool result, the one way every tool writes it. An `AppError` says what was
 * wrong (with its details, one line each); anything else (a driver error quoting SQL and
 * parameters, a bug) says only that it failed, with the request id, and its detail goes to the log.
 *
 * A database out of reach is no tool's failure: it is thrown as `unavailable`, for the transport
 * to answer as every surface does (503, retry). The SDK's path turns any throw into a tool error,
 * which then carries that message.
 */
export function errorResult(error: unknown, ctx: Pick<ActionContext, "requestId" | "logger">): ToolResult {
  if (databaseUnavailable(error)) {
    ctx.logger?.log("warn", "database unavailable", { requestId: ctx.requestId, error: describeError(error) });
    throw databaseUnavailableError();
  }
  // Already said so by an inner layer: still the transport's to answer, not a tool's failure.
  if (error instanceof DatabaseUnavailable) throw error;
  if (error instanceof AppError) {
    const details = error.details?.map((d) => `- ${d.path}${d.line ? ` line ${d.line}` : ""}: ${d.message}`).join("\n");
    return failure(details ? `${error.message}\n${details}` : error.message);
  }
  ctx.logger?.log("error", "tool call failed", { requestId: ctx.requestId, error: describeError(error) });
  const shown = publicError(error);
  return failure(`${shown.message} (request id ${ctx.requestId})`);
}

/**
 * A thrown error as a JSON-RPC error the client reads, for handlers other than a tool's (the relay,
 * the Skills extension's source, an upstream item's read): the upstream's own code and message,
 * Loadout's refusal in its own words, and for anything else (a database error, whose message holds
 * SQL and its parameters) only that it failed, the detail told to `onInternal` for the log.
 */
export function protocolErrorOf(error: unknown, onInternal: (error: unknown) => void): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (error instanceof UpstreamRpcError) return new ProtocolError(error.code, error.message, error.data);
  const shown = publicError(error);
  if (!(error instanceof AppError)) onInternal(error);
  return new ProtocolError(ERROR_CODES[shown.code].jsonRpc, shown.message);
}

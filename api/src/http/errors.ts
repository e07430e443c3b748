import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { ZodError } from "zod";
import {
  AppError,
  databaseUnavailableError,
  describeError,
  type ErrorDetail,
  errorBody,
  INTERNAL_MESSAGE,
  jsonRpcErrorBody,
  publicError,
} from "../errors";
import type { Logger } from "../logger";
import { databaseUnavailable } from "../services/db-errors";
import type { AppEnv } from "./env";

/** Turns zod issues into `details`: one entry per field, naming it and what to do. */
export function zodDetails(error: ZodError): ErrorDetail[] {
  const details: ErrorDetail[] = [];
  for (const issue of error.issues) {
    const path = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) {
        details.push({ path: path ? `${path}.${key}` : key, message: `unknown field "${key}"; remove it` });
      }
    } else if (issue.code === "invalid_type" && issue.input === undefined) {
      details.push({
        path,
        message: issue.message.includes("required") ? issue.message : `${path || "value"} is required`,
      });
    } else {
      details.push({ path, message: issue.message });
    }
  }
  return details;
}

export function validationError(error: ZodError, where: string): AppError {
  const details = zodDetails(error);
  const summary = details.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message)).join("; ");
  return new AppError("invalid_request", `The ${where} is not valid: ${summary}.`, { details });
}

/** `/mcp`, a saved endpoint or a single server: paths whose clients read JSON-RPC errors. */
export const isMcpPath = (path: string) => path === "/mcp" || path.startsWith("/mcp/");

export function respondWithError(c: Context<AppEnv>, error: unknown): Response {
  const requestId = c.get("requestId") ?? "unknown";
  const reply = errorReply(error, requestId, c.get("deps")?.logger);
  for (const [name, value] of Object.entries(reply.headers)) c.header(name, value);
  if (isMcpPath(c.req.path)) return c.json(jsonRpcErrorBody(reply.error, requestId), reply.status);
  return c.json(reply.body, reply.status);
}

/** The answer to an error thrown by a handler; an unexpected one is logged and reported as internal. */
export function errorReply(
  error: unknown,
  requestId: string,
  logger: Logger | undefined,
): {
  status: AppError["status"];
  headers: Record<string, string>;
  body: ReturnType<typeof errorBody>;
  error: AppError;
} {
  let appError: AppError;
  if (error instanceof AppError) {
    appError = error;
  } else if (databaseUnavailable(error)) {
    // Expected while the database restarts: a warning, and an answer the client can retry on.
    logger?.log("warn", "database unavailable", { requestId, error: describeError(error) });
    appError = databaseUnavailableError();
  } else if (error instanceof HTTPException) {
    appError =
      error.status === 413
        ? new AppError("payload_too_large", "The request body is too large for this route.")
        : error.status === 400
          ? new AppError("invalid_json", `The request body could not be read: ${error.message}.`)
          : new AppError("internal", INTERNAL_MESSAGE);
  } else {
    logger?.log("error", "unhandled error", {
      requestId,
      error: describeError(error),
    });
    appError = publicError(error);
  }
  return { status: appError.status, headers: appError.headers, body: errorBody(appError, requestId), error: appError };
}

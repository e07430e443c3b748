/**
 * The closed set of error codes. Domain code throws `AppError`; transports translate it:
 * REST to an HTTP status and the JSON error body, MCP to a JSON-RPC error.
 */
export const ERROR_CODES = {
  invalid_request: { status: 400, jsonRpc: -32602 },
  invalid_json: { status: 400, jsonRpc: -32700 },
  unauthorized: { status: 401, jsonRpc: -32001 },
  invalid_credentials: { status: 401, jsonRpc: -32001 },
  forbidden: { status: 403, jsonRpc: -32003 },
  insufficient_scope: { status: 403, jsonRpc: -32003 },
  csrf_failed: { status: 403, jsonRpc: -32003 },
  not_found: { status: 404, jsonRpc: -32004 },
  method_not_allowed: { status: 405, jsonRpc: -32601 },
  conflict: { status: 409, jsonRpc: -32009 },
  payload_too_large: { status: 413, jsonRpc: -32013 },
  unsupported_media_type: { status: 415, jsonRpc: -32015 },
  rate_limited: { status: 429, jsonRpc: -32029 },
  internal: { status: 500, jsonRpc: -32603 },
  unavailable: { status: 503, jsonRpc: -32050 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorDetail {
  /** The field (`description`) or the file (`references/setup.md`) the problem is in. */
  path: string;
  message: string;
  /** The line in that file, when the problem has one. */
  line?: number;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetail[] | undefined;
  /** Extra response headers, such as Retry-After or WWW-Authenticate. */
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  get status(): (typeof ERROR_CODES)[ErrorCode]["status"] {
    return ERROR_CODES[this.code].status;
  }
}

/** What an unexpected failure tells the caller: nothing internal, only how to get help. */
export const INTERNAL_MESSAGE = "Something went wrong on our side. Try again; if it persists, quote the request id.";

/**
 * An error as a caller may see it: an `AppError` as it is, anything else (a driver error carrying
 * SQL and parameters, a bug's message) as `internal`. The caller logs the original.
 */
export function publicError(error: unknown): AppError {
  return error instanceof AppError ? error : new AppError("internal", INTERNAL_MESSAGE);
}

export const notFound = (what: string, hint?: string) =>
  new AppError("not_found", `${what} was not found.${hint ? ` ${hint}` : ""}`);

export interface ErrorBody {
  error: { code: ErrorCode; message: string; requestId: string; details?: ErrorDetail[] };
}

export function errorBody(error: AppError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      requestId,
      ...(error.details ? { details: error.details } : {}),
    },
  };
}

export interface JsonRpcErrorBody {
  jsonrpc: "2.0";
  id: null;
  error: { code: number; message: string; data: { code: ErrorCode; requestId: string; details?: ErrorDetail[] } };
}

/**
 * The same error as a JSON-RPC answer, for `/mcp`: an MCP client reads JSON-RPC, not the REST
 * body. The id is null: the failure came before (or outside) the request the body named.
 */
export function jsonRpcErrorBody(error: AppError, requestId: string): JsonRpcErrorBody {
  return {
    jsonrpc: "2.0",
    id: null,
    error: {
      code: ERROR_CODES[error.code].jsonRpc,
      message: error.message,
      data: { code: error.code, requestId, ...(error.details ? { details: error.details } : {}) },
    },
  };
}

/** The database is out of reach: told as `unavailable`, and known as such wherever it is caught again. */
export class DatabaseUnavailable extends AppError {}

/** The answer while the database is out of reach, the same on every surface. */
export const databaseUnavailableError = () =>
  new DatabaseUnavailable("unavailable", "The database is not reachable right now. Try again in a few seconds.", {
    headers: { "Retry-After": "2" },
  });

/**
 * A loggable description of an unexpected error. Drizzle puts the query's parameters (which can
 * hold hashes and secrets) in its message, so for query errors only the driver's own message is kept.
 */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  if (error.message.startsWith("Failed query")) {
    const cause = (error as { cause?: unknown }).cause;
    return `query failed: ${cause instanceof Error ? cause.message : "unknown cause"}`;
  }
  return `${error.name}: ${error.message}`;
}

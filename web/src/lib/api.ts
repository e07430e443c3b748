// The console's only way to the REST API: same-origin requests with the session cookie,
// the CSRF header on writes, and one typed error for every failure.

// `line` is 1-based, in the file that `path` names (a refused credential in SKILL.md, a YAML error).
export type ErrorDetail = { path: string; message: string; line?: number };

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: ErrorDetail[];
  readonly requestId: string | undefined;

  constructor(init: { status: number; code: string; message: string; details?: ErrorDetail[]; requestId?: string }) {
    super(init.message);
    this.name = "ApiError";
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.requestId = init.requestId;
  }
}

const CSRF_COOKIE = "lo_csrf";
const WRITE_METHODS = new Set(["POST", "PUT", "PATCH", "DELETE"]);

// Kept from the last auth response or /v1/me, for when the cookie cannot be read.
let rememberedCsrfToken: string | null = null;

export function rememberCsrfToken(token: string | null): void {
  rememberedCsrfToken = token;
}

function readCookie(name: string): string | null {
  if (typeof document === "undefined") return null;
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return null;
}

function csrfToken(): string | null {
  return readCookie(CSRF_COOKIE) ?? rememberedCsrfToken;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null;
}

function parseDetails(value: unknown): ErrorDetail[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((item: unknown): ErrorDetail[] => {
    if (!isRecord(item) || typeof item.message !== "string") return [];
    const detail: ErrorDetail = { path: typeof item.path === "string" ? item.path : "", message: item.message };
    if (typeof item.line === "number" && Number.isInteger(item.line)) detail.line = item.line;
    return [detail];
  });
}

async function toApiError(response: Response): Promise<ApiError> {
  let body: unknown = null;
  try {
    body = await response.json();
  } catch {
    // Not JSON (a proxy's HTML page, an empty body): fall through to a generic message.
  }
  const error = isRecord(body) && isRecord(body.error) ? body.error : null;
  if (error && typeof error.message === "string") {
    return new ApiError({
      status: response.status,
      code: typeof error.code === "string" ? error.code : "unknown_error",
      message: error.message,
      details: parseDetails(error.details),
      requestId: typeof error.requestId === "string" ? error.requestId : undefined,
    });
  }
  return new ApiError({
    status: response.status,
    code: "unexpected_response",
    message: `The server answered ${response.status} ${response.statusText}`.trim(),
  });
}

type RequestOptions = {
  body?: unknown;
  // Bytes sent as they are (an uploaded archive), with their own content type, instead of JSON.
  raw?: { data: Blob; contentType: string };
  // signup, login and setup create the session; they cannot carry its CSRF token yet.
  csrf?: boolean;
  signal?: AbortSignal;
};

async function request<T>(method: string, path: string, options: RequestOptions = {}): Promise<T> {
  const headers = new Headers({ accept: "application/json" });
  if (options.raw) headers.set("content-type", options.raw.contentType);
  else if (options.body !== undefined) headers.set("content-type", "application/json");
  if (WRITE_METHODS.has(method) && options.csrf !== false) {
    const token = csrfToken();
    if (token) headers.set("x-csrf-token", token);
  }

  let response: Response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: options.raw ? options.raw.data : options.body === undefined ? null : JSON.stringify(options.body),
      signal: options.signal ?? null,
    });
  } catch (cause) {
    if (cause instanceof DOMException && cause.name === "AbortError") throw cause;
    throw new ApiError({
      status: 0,
      code: "network_error",
      message: "Could not reach the Loadout server. Check that it is running and try again.",
    });
  }

  if (!response.ok) throw await toApiError(response);
  if (response.status === 204) return undefined as T;
  // The response shapes are the API's contract (see ./types.ts); this is the one place they are trusted.
  return (await response.json()) as T;
}

export const api = {
  get: <T>(path: string, options?: Pick<RequestOptions, "signal">) => request<T>("GET", path, options),
  post: <T>(path: string, body?: unknown, options?: Omit<RequestOptions, "body">) =>
    request<T>("POST", path, { ...options, body }),
  postBytes: <T>(path: string, data: Blob, contentType: string) =>
    request<T>("POST", path, { raw: { data, contentType } }),
  patch: <T>(path: string, body: unknown) => request<T>("PATCH", path, { body }),
  delete: (path: string, options?: Omit<RequestOptions, "body">) => request<void>("DELETE", path, options),
};

export function isUnauthenticated(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401;
}

export function errorMessage(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}

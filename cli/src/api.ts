import { CliError, type Credentials, loadCredentials, originOf, saveCredentials } from "./config";

export const DEFAULT_URL = "http://127.0.0.1:8787";

/** One problem of a refused request, as the API's error body names it. */
export interface ErrorDetail {
  path: string;
  message: string;
  line?: number;
}

/** A refusal from the REST API: its status, code, message and details (see docs/http-api.md). */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: ErrorDetail[] = [],
  ) {
    super(message);
  }
}

export interface Session {
  origin: string;
  request<T>(method: string, path: string, options?: RequestOptions): Promise<T>;
  /** Like request, for a file's bytes. */
  download(path: string): Promise<Uint8Array>;
}

interface RequestOptions {
  json?: unknown;
  body?: Uint8Array;
  contentType?: string;
}

/** The server to talk to: `--url`, then `LOADOUT_URL`, then the one signed in to last. */
export async function serverOrigin(flag: string | undefined): Promise<string> {
  if (flag) return originOf(flag);
  if (process.env.LOADOUT_URL) return originOf(process.env.LOADOUT_URL);
  return (await loadCredentials()).current ?? DEFAULT_URL;
}

/** A session on the server with the caller's credentials: `LOADOUT_TOKEN`, or what `loadout login` stored. */
export async function openSession(urlFlag: string | undefined): Promise<Session> {
  const origin = await serverOrigin(urlFlag);
  const fromEnv = process.env.LOADOUT_TOKEN;
  let credentials: Credentials | undefined = fromEnv
    ? { kind: "token", token: fromEnv }
    : (await loadCredentials()).servers[origin];
  if (!credentials)
    throw new CliError(
      `You are not signed in to ${origin}. Run \`loadout login ${origin}\` (or set LOADOUT_TOKEN for CI).`,
      3,
    );

  const bearer = async (forceRefresh: boolean): Promise<string> => {
    if (!credentials) throw new Error("no credentials");
    if (credentials.kind === "token") return credentials.token;
    const soon = Date.parse(credentials.expiresAt) - Date.now() < 60_000;
    if (forceRefresh || soon) credentials = await refresh(origin, credentials);
    return credentials.kind === "oauth" ? credentials.accessToken : credentials.token;
  };

  const send = async (method: string, path: string, options: RequestOptions = {}): Promise<Response> => {
    const attempt = async (forceRefresh: boolean) => {
      const headers: Record<string, string> = { authorization: `Bearer ${await bearer(forceRefresh)}` };
      let body: BodyInit | undefined;
      if (options.json !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(options.json);
      } else if (options.body) {
        headers["content-type"] = options.contentType ?? "application/octet-stream";
        body = options.body as Uint8Array<ArrayBuffer>;
      }
      try {
        return await fetch(`${origin}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
      } catch (error) {
        throw new CliError(`Could not reach ${origin} (${(error as Error).message}). Is Loadout running there?`, 4);
      }
    };
    const first = await attempt(false);
    // An access token revoked or expired early: one refresh, then the answer stands.
    if (first.status === 401 && credentials?.kind === "oauth") return attempt(true);
    return first;
  };

  return {
    origin,
    async request<T>(method: string, path: string, options?: RequestOptions): Promise<T> {
      const res = await send(method, path, options);
      if (res.status === 204) return undefined as T;
      const text = await res.text();
      if (!res.ok) throw apiError(res.status, text, origin);
      return JSON.parse(text) as T;
    },
    async download(path: string): Promise<Uint8Array> {
      const res = await send("GET", path);
      if (!res.ok) throw apiError(res.status, await res.text(), origin);
      return new Uint8Array(await res.arrayBuffer());
    },
  };
}

function apiError(status: number, text: string, origin: string): ApiError | CliError {
  let parsed: { error?: { code?: string; message?: string; details?: ErrorDetail[] } } = {};
  try {
    parsed = JSON.parse(text);
  } catch {
    // Not Loadout's error shape: a proxy's page, say. Its status is all there is to tell.
  }
  const error = parsed.error;
  if (status === 401)
    return new CliError(
      `${origin} refused the credentials${error?.message ? `: ${error.message}` : ""} Run \`loadout login ${origin}\` again.`,
      3,
    );
  return new ApiError(status, error?.code ?? "http_error", error?.message ?? `HTTP ${status}`, error?.details ?? []);
}

/** Rotates the OAuth tokens (the refresh token is single-use) and stores the new pair. */
async function refresh(origin: string, credentials: Credentials & { kind: "oauth" }): Promise<Credentials> {
  let res: Response;
  try {
    res = await fetch(credentials.tokenEndpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "refresh_token",
        refresh_token: credentials.refreshToken,
        client_id: credentials.clientId,
      }).toString(),
    });
  } catch (error) {
    throw new CliError(`Could not reach ${origin} (${(error as Error).message}). Is Loadout running there?`, 4);
  }
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== "string" || typeof body.refresh_token !== "string")
    throw new CliError(`Your sign-in to ${origin} has ended. Run \`loadout login ${origin}\` again.`, 3);
  const next: Credentials = {
    ...credentials,
    accessToken: body.access_token,
    refreshToken: body.refresh_token,
    expiresAt: new Date(Date.now() + Number(body.expires_in ?? 3600) * 1000).toISOString(),
  };
  await saveCredentials(origin, next);
  return next;
}

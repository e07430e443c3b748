import { createHash, randomBytes } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import open from "open";
import { CliError, originOf, saveCredentials } from "./config";

/** What `loadout login` asks for at the REST API: what push, pull, sync and `mcp add` use. */
export const LOGIN_SCOPES = ["mcp", "skills:read", "skills:write", "admin"] as const;
const WAIT_MS = 5 * 60_000;

interface Metadata {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  registration_endpoint?: string;
  code_challenge_methods_supported?: string[];
}

export interface LoginOptions {
  url: string;
  /** Print the URL only (CI logs, tests); otherwise the system browser is opened too. */
  openBrowser: boolean;
  out: (line: string) => void;
}

/**
 * OAuth 2.1 with PKCE against Loadout's own authorization server, as a native public client with
 * a loopback redirect (RFC 8252), as `gh auth login` does: register with this run's redirect URI,
 * send the user to consent in the browser, take the code on 127.0.0.1, redeem it for a token bound
 * to the REST API (`<origin>/v1`), and keep the tokens in the config folder (0600).
 */
export async function login(options: LoginOptions): Promise<{ origin: string; email: string }> {
  const origin = originOf(options.url);
  const metadata = await discover(origin);
  if (!metadata.code_challenge_methods_supported?.includes("S256"))
    throw new CliError(`${origin} does not offer PKCE with S256, which the CLI requires.`, 4);
  if (!metadata.registration_endpoint)
    throw new CliError(`${origin} offers no client registration; sign in with \`loadout login --token lo_…\`.`, 4);

  const callback = await listen();
  try {
    const redirectUri = `http://127.0.0.1:${callback.port}/callback`;
    const clientId = await register(metadata.registration_endpoint, redirectUri);
    const verifier = randomBytes(32).toString("base64url");
    const state = randomBytes(16).toString("base64url");
    const resource = `${origin}/v1`;
    const authorize = new URL(metadata.authorization_endpoint);
    for (const [key, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirectUri,
      state,
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource,
      scope: LOGIN_SCOPES.join(" "),
    }))
      authorize.searchParams.set(key, value);

    options.out(`Open this URL to sign in to ${origin} and allow the CLI:\n\n  ${authorize}\n`);
    // Best effort: the URL is printed too, so a machine without a browser (SSH, CI) loses nothing.
    if (options.openBrowser) open(authorize.toString()).catch(() => {});
    options.out("Waiting for the browser…");
    const answer = await callback.answer;
    if (answer.get("state") !== state) throw new CliError("The sign-in answer did not match this login. Try again.", 3);
    // RFC 9207: the answer must come from the issuer asked.
    if (answer.has("iss") && answer.get("iss") !== metadata.issuer)
      throw new CliError(`The sign-in answer came from ${answer.get("iss")}, not ${metadata.issuer}. Try again.`, 3);
    const error = answer.get("error");
    if (error)
      throw new CliError(
        error === "access_denied"
          ? "Sign-in was declined in the browser."
          : `Sign-in failed: ${answer.get("error_description") ?? error}.`,
        3,
      );
    const code = answer.get("code");
    if (!code) throw new CliError("The sign-in answer carried no code. Try again.", 3);
    const tokens = await redeem(metadata.token_endpoint, {
      grant_type: "authorization_code",
      code,
      redirect_uri: redirectUri,
      client_id: clientId,
      code_verifier: verifier,
      resource,
    });
    await saveCredentials(origin, {
      kind: "oauth",
      accessToken: tokens.access_token,
      refreshToken: tokens.refresh_token,
      expiresAt: new Date(Date.now() + tokens.expires_in * 1000).toISOString(),
      clientId,
      tokenEndpoint: metadata.token_endpoint,
    });
    return { origin, email: await whoAmI(origin, tokens.access_token) };
  } finally {
    callback.close();
  }
}

/** `loadout login --token lo_…`: checks the API token with the server, then keeps it (0600). */
export async function loginWithToken(url: string, token: string): Promise<{ origin: string; email: string }> {
  const origin = originOf(url);
  const email = await whoAmI(origin, token);
  await saveCredentials(origin, { kind: "token", token });
  return { origin, email };
}

async function whoAmI(origin: string, bearer: string): Promise<string> {
  const res = await reach(`${origin}/v1/me`, { headers: { authorization: `Bearer ${bearer}` } });
  const body = (await res.json().catch(() => ({}))) as { user?: { email?: string }; error?: { message?: string } };
  if (!res.ok) throw new CliError(`${origin} refused the token: ${body.error?.message ?? `HTTP ${res.status}`}`, 3);
  return body.user?.email ?? "(unknown)";
}

async function discover(origin: string): Promise<Metadata> {
  const res = await reach(`${origin}/.well-known/oauth-authorization-server`);
  if (!res.ok) throw new CliError(`${origin} is not a Loadout server (no OAuth metadata, HTTP ${res.status}).`, 4);
  const metadata = (await res.json()) as Metadata;
  // The metadata must name the issuer asked (RFC 8414 §3.3), or its endpoints are not to be trusted.
  if (originOf(metadata.issuer) !== origin)
    throw new CliError(`${origin} names another issuer (${metadata.issuer}); use that URL instead.`, 4);
  return metadata;
}

async function register(endpoint: string, redirectUri: string): Promise<string> {
  const res = await reach(endpoint, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      client_name: `Loadout CLI on ${hostname()}`,
      redirect_uris: [redirectUri],
      application_type: "native",
      token_endpoint_auth_method: "none",
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
    }),
  });
  const body = (await res.json().catch(() => ({}))) as { client_id?: string; error_description?: string };
  if (!res.ok || !body.client_id)
    throw new CliError(`Registering the CLI failed: ${body.error_description ?? `HTTP ${res.status}`}.`, 4);
  return body.client_id;
}

async function redeem(
  endpoint: string,
  form: Record<string, string>,
): Promise<{ access_token: string; refresh_token: string; expires_in: number }> {
  const res = await reach(endpoint, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(form).toString(),
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  if (!res.ok || typeof body.access_token !== "string" || typeof body.refresh_token !== "string")
    throw new CliError(`Redeeming the sign-in failed: ${String(body.error_description ?? `HTTP ${res.status}`)}.`, 3);
  return {
    access_token: body.access_token,
    refresh_token: body.refresh_token,
    expires_in: Number(body.expires_in ?? 3600),
  };
}

async function reach(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new CliError(`Could not reach ${new URL(url).origin} (${(error as Error).message}). Is Loadout running?`, 4);
  }
}

/** The loopback listener: the first request to /callback is the authorization answer. */
async function listen(): Promise<{ port: number; answer: Promise<URLSearchParams>; close: () => void }> {
  let settle: (params: URLSearchParams) => void = () => {};
  let fail: (error: Error) => void = () => {};
  const answer = new Promise<URLSearchParams>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    if (url.pathname !== "/callback") {
      res.writeHead(404).end();
      return;
    }
    const ok = url.searchParams.has("code");
    res.writeHead(ok ? 200 : 400, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(
      `<!doctype html><title>Loadout CLI</title><p>${
        ok
          ? "Signed in. You can close this tab and go back to the terminal."
          : "Sign-in did not complete; see the terminal."
      }</p>`,
    );
    settle(url.searchParams);
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  const timer = setTimeout(() => fail(new CliError("No answer from the browser within 5 minutes.", 3)), WAIT_MS);
  timer.unref();
  return {
    port: (server.address() as AddressInfo).port,
    answer,
    close: () => {
      clearTimeout(timer);
      server.close();
      server.closeAllConnections();
    },
  };
}

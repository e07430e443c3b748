import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import { setCookie } from "hono/cookie";
import { cors } from "hono/cors";
import { AUTHORIZATION_REQUEST_SECONDS, OAUTH_SCOPES } from "../domain/oauth/lifetimes";
import { textProblem } from "../domain/text";
import type { AppEnv } from "../http/env";
import { readLimited } from "../http/middleware/json-body";
import { requestOrigin } from "../http/origin";
import { RegisterClientInput } from "../schemas/oauth";
import type { AnonymousContext } from "../services/context";
import { startAuthorization } from "../services/oauth/authorize";
import { browserBinding } from "../services/oauth/browser-binding";
import { registerClient } from "../services/oauth/clients";
import type { OAuthDeps } from "../services/oauth/deps";
import { revokeOAuthToken } from "../services/oauth/revoke";
import { exchangeToken } from "../services/oauth/token";
import { errorPage } from "./error-page";
import { OAuthError } from "./errors";

/** OAuth requests are a few form fields or a small JSON document. */
const OAUTH_BODY_LIMIT = 16 * 1024;
export const CONSENT_PATH = "/consent/";
/** Set by /oauth/authorize in the browser that started a request (see services/oauth/browser-binding.ts). */
export const OAUTH_BROWSER_COOKIE = "lo_oauth_browser";

/*
 * Loadout's OAuth 2.1 authorization server, written here rather than taken from a library: the
 * libraries that run on Workers either keep their state in KV (not our Postgres, not our
 * tenancy and audit model) or assume Node. The protocol surface is small — authorize, token,
 * register, revoke, metadata — and each rule it needs is a tested function in domain/oauth.
 * These endpoints answer OAuth's own error shape, `{ error, error_description }`, and are not in
 * the OpenAPI document: they are described by the authorization-server metadata instead.
 */
export function registerOAuth(app: OpenAPIHono<AppEnv>) {
  const deps = (c: Context<AppEnv>): OAuthDeps => {
    const d = c.get("deps");
    return {
      allowLoopback: d.allowLoopbackUpstreams ?? false,
      ...(d.resolveHost ? { resolveHost: d.resolveHost } : {}),
      ...(d.clientMetadataFetch ? { fetch: d.clientMetadataFetch } : {}),
    };
  };
  const anonymous = (c: Context<AppEnv>): AnonymousContext => ({
    db: c.get("db"),
    requestId: c.get("requestId"),
    now: c.get("now"),
  });

  // Browser-based MCP clients discover and redeem cross-origin; nothing here reads cookies.
  const open = cors({ origin: "*", allowMethods: ["GET", "POST", "OPTIONS"], maxAge: 86_400 });
  for (const path of [
    "/.well-known/oauth-authorization-server",
    "/.well-known/openid-configuration",
    "/oauth/register",
    "/oauth/token",
    "/oauth/revoke",
  ]) {
    app.use(path, open);
  }

  const metadata = (c: Context<AppEnv>) => {
    const issuer = requestOrigin(c);
    return c.json({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      scopes_supported: [...OAUTH_SCOPES],
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      // Documents are fetched through the SSRF guard, which needs a resolver (Node's, or DNS over
      // HTTPS on Workers): a deployment without one offers dynamic registration only.
      client_id_metadata_document_supported: Boolean(c.get("deps").resolveHost),
      authorization_response_iss_parameter_supported: true,
      service_documentation: `${issuer}/v1/docs`,
    });
  };
  app.get("/.well-known/oauth-authorization-server", metadata);
  app.get("/.well-known/openid-configuration", metadata);

  app.post("/oauth/register", (c) =>
    answer(c, async () => {
      const body = await readJson(c);
      const parsed = RegisterClientInput.safeParse(body);
      if (!parsed.success) {
        const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "body"}: ${i.message}`).join("; ");
        throw new OAuthError("invalid_client_metadata", problems);
      }
      const address = c.get("deps").clientAddress?.(c) ?? null;
      return c.json(await registerClient({ ctx: anonymous(c), input: parsed.data, address }), 201);
    }),
  );

  app.get("/oauth/authorize", async (c) => {
    const params = c.req.query();
    try {
      refuseBadText(params);
    } catch (error) {
      if (!(error instanceof OAuthError)) throw error;
      c.header("Cache-Control", "no-store");
      return c.html(errorPage(error), 400);
    }
    const outcome = await startAuthorization({
      ctx: anonymous(c),
      params,
      issuer: requestOrigin(c),
      deps: deps(c),
      address: c.get("deps").clientAddress?.(c) ?? null,
    });
    c.header("Cache-Control", "no-store");
    if (outcome.kind === "error") {
      for (const [name, value] of Object.entries(outcome.error.headers)) c.header(name, value);
      return c.html(errorPage(outcome.error), outcome.error.status === 429 ? 429 : 400);
    }
    if (outcome.kind === "redirect") return c.redirect(outcome.location, 302);
    // Binds the request to this browser: only it may read and answer the consent. The cookie
    // goes only to that request's consent routes, so several pending requests (tabs) coexist.
    setCookie(c, OAUTH_BROWSER_COOKIE, browserBinding(c.get("deps").secretKey, outcome.id), {
      path: `/v1/oauth/requests/${outcome.id}`,
      httpOnly: true,
      sameSite: "Lax",
      secure: c.get("deps").secureCookies,
      maxAge: AUTHORIZATION_REQUEST_SECONDS,
    });
    return c.redirect(`${CONSENT_PATH}?request=${encodeURIComponent(outcome.id)}`, 302);
  });

  app.post("/oauth/token", (c) =>
    answer(c, async () => {
      const form = await readForm(c);
      return c.json(await exchangeToken({ ctx: anonymous(c), form, issuer: requestOrigin(c), deps: deps(c) }), 200);
    }),
  );

  app.post("/oauth/revoke", (c) =>
    answer(c, async () => {
      await revokeOAuthToken({ ctx: anonymous(c), form: await readForm(c), deps: deps(c) });
      return c.body(null, 200);
    }),
  );
}

/** Runs an endpoint, answering OAuth errors in OAuth's shape; never cached (RFC 6749 §5.1). */
async function answer(c: Context<AppEnv>, run: () => Promise<Response>): Promise<Response> {
  c.header("Cache-Control", "no-store");
  try {
    return await run();
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
    // HTTP asks a 401 to name a scheme; client authentication at these endpoints is Basic (RFC 6749 §5.2).
    if (error.code === "invalid_client" && error.status === 401) c.header("WWW-Authenticate", 'Basic realm="loadout"');
    return c.json(error.body(), error.status);
  }
}

async function readText(c: Context<AppEnv>): Promise<string> {
  try {
    return new TextDecoder().decode(await readLimited(c.req.raw, OAUTH_BODY_LIMIT));
  } catch {
    throw new OAuthError("invalid_request", `The request body is larger than ${OAUTH_BODY_LIMIT / 1024} KB.`);
  }
}

async function readJson(c: Context<AppEnv>): Promise<unknown> {
  const text = await readText(c);
  try {
    return JSON.parse(text);
  } catch {
    throw new OAuthError("invalid_client_metadata", "The body must be a JSON object of client metadata.");
  }
}

/** Token and revocation requests are form-encoded; a parameter sent twice is refused (RFC 6749 §3.2). */
async function readForm(c: Context<AppEnv>): Promise<Record<string, string>> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") {
    throw new OAuthError("invalid_request", "Send the parameters as application/x-www-form-urlencoded.");
  }
  const params = new URLSearchParams(await readText(c));
  const form: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name in form) throw new OAuthError("invalid_request", `Parameter ${name} is repeated.`);
    form[name] = value;
  }
  // Some clients name themselves in HTTP Basic (RFC 6749 §2.3.1) even without a secret.
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(c.req.header("authorization") ?? "")?.[1];
  if (basic && form.client_id === undefined) {
    let id: string;
    try {
      id = decodeURIComponent(atob(basic).split(":")[0] ?? "");
    } catch {
      throw new OAuthError("invalid_client", "The Basic authorization header is malformed.");
    }
    form.client_id = id;
  }
  refuseBadText(form);
  return form;
}

/**
 * The text rule of every other input (domain/text.ts), for OAuth's own parameters: a NUL would
 * otherwise reach a query as a client id or a token, which Postgres refuses.
 */
function refuseBadText(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    const problem = textProblem(name) ?? textProblem(value);
    if (problem) throw new OAuthError("invalid_request", `Parameter ${textProblem(name) ? "name" : name} ${problem}.`);
  }
}

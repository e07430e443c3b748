import { getCookie } from "hono/cookie";
import { createMiddleware } from "hono/factory";
import { csrfTokenFor, safeEqual } from "../../auth/secrets";
import { API_RESOURCE_PATH } from "../../domain/oauth/resource";
import { hasScope, type Scope } from "../../domain/scopes";
import { AppError } from "../../errors";
import { principalFromApiBearer } from "../../services/auth/api-bearer";
import { principalFromSession, type ResolvedPrincipal } from "../../services/auth/resolve-principal";
import type { AppEnv } from "../env";
import { requestOrigin } from "../origin";

export const SESSION_COOKIE = "lo_session";
export const CSRF_COOKIE = "lo_csrf";
export const CSRF_HEADER = "x-csrf-token";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * The one auth middleware: resolves the principal from a Bearer API token or the console
 * session cookie, checks CSRF on cookie-authenticated writes, and enforces the route's scope.
 */
export function requireAuth(scope: Scope | null) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const db = c.get("db");
    const now = c.get("now");
    const authorization = c.req.header("authorization");
    let resolved: ResolvedPrincipal;
    if (authorization !== undefined) {
      const match = /^Bearer[ ]+(\S+)\s*$/i.exec(authorization);
      if (!match?.[1]) {
        throw new AppError("unauthorized", "The Authorization header must be `Bearer <token>`.", {
          headers: bearerChallenge(),
        });
      }
      resolved = await principalFromApiBearer(db, match[1], now, `${requestOrigin(c)}${API_RESOURCE_PATH}`).catch(
        (error) => {
          throw withChallenge(error);
        },
      );
    } else {
      const session = getCookie(c, SESSION_COOKIE);
      if (!session) {
        throw new AppError("unauthorized", "Sign in, or send an API token as `Authorization: Bearer lo_…`.", {
          headers: bearerChallenge(),
        });
      }
      resolved = await principalFromSession(db, session, now).catch((error) => {
        throw withChallenge(error);
      });
      if (!SAFE_METHODS.has(c.req.method) && resolved.principal.kind === "session") {
        const sent = c.req.header(CSRF_HEADER) ?? "";
        if (!safeEqual(sent, csrfTokenFor(c.get("csrfKey"), resolved.principal.sessionId))) {
          throw new AppError(
            "csrf_failed",
            `Cookie-authenticated writes need the ${CSRF_HEADER} header, with the value of the ${CSRF_COOKIE} cookie.`,
          );
        }
      }
    }
    c.set("principal", resolved.principal);
    if (resolved.after) {
      const after = resolved.after;
      c.get("defer")(() => after(db));
    }
    if (!hasScope(resolved.principal.scopes, scope)) {
      throw new AppError("insufficient_scope", `This token lacks the "${scope}" scope. Create a token that has it.`, {
        headers: { "WWW-Authenticate": `Bearer error="insufficient_scope", scope="${scope}"` },
      });
    }
    await next();
  });
}

function bearerChallenge(): Record<string, string> {
  return { "WWW-Authenticate": 'Bearer realm="loadout"' };
}

function withChallenge(error: unknown): unknown {
  if (error instanceof AppError && error.code === "unauthorized") {
    return new AppError("unauthorized", error.message, {
      headers: { "WWW-Authenticate": 'Bearer realm="loadout", error="invalid_token"' },
    });
  }
  return error;
}

/**
 * Unauthenticated writes (sign-up, sign-in, setup) carry no session to tie a CSRF token to;
 * a cross-site Origin is refused instead.
 */
export const sameOriginOnly = createMiddleware<AppEnv>(async (c, next) => {
  const origin = c.req.header("origin");
  if (origin && origin !== "null") {
    let host: string | null = null;
    try {
      host = new URL(origin).host;
    } catch {
      host = null;
    }
    if (host !== (c.req.header("host") ?? new URL(c.req.url).host)) {
      throw new AppError(
        "csrf_failed",
        "Requests from another site are refused. Use the Loadout console on this origin.",
      );
    }
  }
  await next();
});

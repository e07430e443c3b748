import { createRoute, type RouteConfig } from "@hono/zod-openapi";
import type { MiddlewareHandler } from "hono";
import type { Scope } from "../domain/scopes";
import { ErrorSchema } from "../schemas/common";
import type { AppEnv } from "./env";
import { requireAuth, sameOriginOnly } from "./middleware/auth";
import { DEFAULT_BODY_LIMIT, jsonBody } from "./middleware/json-body";

/** Who may call a route: anyone, or a signed-in principal holding `scope` (null: any signed-in principal). */
export type Access = { public: true } | { scope: Scope | null };

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorSchema } },
});

/**
 * Every REST route is declared here: the same declaration gives the OpenAPI document its
 * security (which the security suite walks), installs the auth middleware with that scope,
 * and reads JSON bodies within the route's limit.
 */
export function defineRoute<const R extends Omit<RouteConfig, "security" | "middleware">>(
  access: Access,
  config: R,
  options: { bodyLimit?: number; rawBody?: readonly string[] } = {},
) {
  const middleware: MiddlewareHandler<AppEnv>[] = [];
  const hasBody = Boolean(config.request?.body);
  if ("public" in access) {
    if (config.method !== "get") middleware.push(sameOriginOnly);
  } else {
    middleware.push(requireAuth(access.scope));
  }
  if (hasBody) middleware.push(jsonBody(options.bodyLimit ?? DEFAULT_BODY_LIMIT, options.rawBody));

  const errors = {
    ...(hasBody || config.request?.params || config.request?.query
      ? { 400: errorResponse("The input is malformed; `details` names each problem.") }
      : {}),
    ...("public" in access
      ? {}
      : {
          401: errorResponse("No credentials, or a token that is unknown, revoked or expired."),
          403: errorResponse("The token lacks the route's scope, or CSRF protection refused a cookie write."),
        }),
    ...(hasBody
      ? { 413: errorResponse("The body exceeds the route's size limit."), 415: errorResponse("The body is not JSON.") }
      : {}),
  };
  const security: Array<Record<string, string[]>> =
    "public" in access ? [] : [{ bearerAuth: access.scope ? [access.scope] : [] }, { sessionCookie: [] }];
  // Typed as the caller's config so handlers keep their input and response types.
  return createRoute({
    ...config,
    security,
    middleware,
    responses: { ...errors, ...config.responses },
  }) as unknown as R & {
    getRoutingPath(): string;
  };
}

export const jsonContent = <T>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});

export const jsonRequest = <T>(schema: T) => ({
  body: { required: true, content: { "application/json": { schema } } },
});

export { errorResponse };

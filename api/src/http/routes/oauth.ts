import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { getCookie } from "hono/cookie";
import { OAUTH_BROWSER_COOKIE } from "../../oauth/routes";
import {
  AuthorizationDecisionInput,
  AuthorizationDecisionResult,
  AuthorizationIdParam,
  AuthorizationRequestView,
  ConnectedAppIdParam,
  ConnectedAppSchema,
} from "../../schemas/oauth";
import { decideAuthorization, describeAuthorization } from "../../services/oauth/authorize";
import { listConnectedApps, revokeConnectedApp } from "../../services/oauth/connected-apps";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";
import { requestOrigin } from "../origin";

const tags = ["connected apps"];

const describeRoute = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/oauth/requests/{id}",
    tags,
    summary: "A pending OAuth authorization request, as the consent page shows it",
    request: { params: AuthorizationIdParam },
    responses: {
      200: jsonContent(AuthorizationRequestView, "The client, what it asks for, and where it redirects."),
      403: errorResponse("The request was started in another browser."),
      404: errorResponse("No such pending request (or it expired, or was answered)."),
    },
  },
);

const decideRoute = defineRoute(
  { scope: null },
  {
    method: "post",
    path: "/v1/oauth/requests/{id}/decision",
    tags,
    summary: "Approve or deny an OAuth authorization request (console session only)",
    request: { params: AuthorizationIdParam, ...jsonRequest(AuthorizationDecisionInput) },
    responses: {
      200: jsonContent(AuthorizationDecisionResult, "Where to send the browser next."),
      403: errorResponse("The request was started in another browser, or this is not a console session."),
      404: errorResponse("No such pending request, or no such workspace among yours."),
    },
  },
);

const listRoute = defineRoute(
  { scope: "admin" },
  {
    method: "get",
    path: "/v1/connected-apps",
    tags,
    summary: "Apps connected with OAuth (ChatGPT, Claude…), newest first",
    responses: { 200: jsonContent(z.object({ apps: z.array(ConnectedAppSchema) }), "Connected apps.") },
  },
);

const revokeRoute = defineRoute(
  { scope: "admin" },
  {
    method: "delete",
    path: "/v1/connected-apps/{id}",
    tags,
    summary: "Disconnect an app: its tokens stop working at once",
    request: { params: ConnectedAppIdParam },
    responses: {
      204: { description: "Disconnected." },
      404: errorResponse("No such connected app among the caller's."),
    },
  },
);

/** The cookie `/oauth/authorize` set in the browser that started the request. */
const browserOf = (c: Context<AppEnv>) => ({
  secretKey: c.get("deps").secretKey,
  cookie: getCookie(c, OAUTH_BROWSER_COOKIE),
});

export function registerOAuthConsent(app: OpenAPIHono<AppEnv>) {
  app.openapi(describeRoute, async (c) =>
    c.json(
      await describeAuthorization({ ctx: actionContext(c), id: c.req.valid("param").id, browser: browserOf(c) }),
      200,
    ),
  );
  app.openapi(decideRoute, async (c) =>
    c.json(
      await decideAuthorization({
        ctx: actionContext(c),
        id: c.req.valid("param").id,
        input: c.req.valid("json"),
        issuer: requestOrigin(c),
        browser: browserOf(c),
      }),
      200,
    ),
  );
  app.openapi(listRoute, async (c) => c.json({ apps: await listConnectedApps({ ctx: actionContext(c) }) }, 200));
  app.openapi(revokeRoute, async (c) => {
    await revokeConnectedApp({ ctx: actionContext(c), input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
}

import type { OpenAPIHono } from "@hono/zod-openapi";
import {
  ConnectServerInput,
  ConnectServerResult,
  DisconnectQuery,
  ServerConnectionsSchema,
} from "../../schemas/server-connections";
import { ServerParams } from "../../schemas/servers";
import { startConnect } from "../../services/servers/oauth/connect";
import { disconnectServer, getConnections } from "../../services/servers/oauth/connections";
import type { ServerDeps } from "../../services/servers/upstreams";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";
import { requestOrigin } from "../origin";

const tags = ["servers"];
const base = "/v1/workspaces/{ws}/servers/{slug}";

const connect = defineRoute(
  { scope: "servers:write" },
  {
    method: "post",
    path: `${base}/connect`,
    tags,
    summary: "Start signing in to a server that needs OAuth, for yourself or (shared, admins) for the team",
    request: { params: ServerParams, ...jsonRequest(ConnectServerInput) },
    responses: {
      200: jsonContent(
        ConnectServerResult,
        "Where the browser signs in; the callback brings it back to the server's page.",
      ),
      400: errorResponse("The server's sign-in cannot be used (the reason says why)."),
      403: errorResponse("Only owners and admins connect for the team."),
      404: errorResponse("No such server for the caller."),
      409: errorResponse("The server uses the team's connection."),
    },
  },
);

const connections = defineRoute(
  { scope: "servers:read" },
  {
    method: "get",
    path: `${base}/connection`,
    tags,
    summary: "How the server signs in, your connection (or the team's) and, for admins, each member's state",
    request: { params: ServerParams },
    responses: {
      200: jsonContent(ServerConnectionsSchema, "The sign-in state; no token is ever returned."),
      404: errorResponse("No such server for the caller."),
    },
  },
);

const disconnect = defineRoute(
  { scope: "servers:write" },
  {
    method: "delete",
    path: `${base}/connection`,
    tags,
    summary: "Forget your tokens for the server (or, with ?shared=1, the team's) and revoke them where the server can",
    request: { params: ServerParams, query: DisconnectQuery },
    responses: {
      204: { description: "Disconnected." },
      403: errorResponse("Only owners and admins disconnect the team's sign-in."),
      404: errorResponse("No such server, or no such connection, for the caller."),
    },
  },
);

export function registerServerConnections(app: OpenAPIHono<AppEnv>, serverDeps: ServerDeps) {
  app.openapi(connect, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(
      await startConnect({
        ctx: actionContext(c),
        ws,
        slug,
        input: c.req.valid("json"),
        origin: requestOrigin(c),
        deps: serverDeps,
      }),
      200,
    );
  });
  app.openapi(connections, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await getConnections({ ctx: actionContext(c), ws, slug }), 200);
  });
  app.openapi(disconnect, async (c) => {
    const { ws, slug } = c.req.valid("param");
    const shared = c.req.valid("query").shared;
    await disconnectServer({
      ctx: actionContext(c),
      ws,
      slug,
      shared: shared === "1" || shared === "true",
      deps: serverDeps,
    });
    return c.body(null, 204);
  });
}

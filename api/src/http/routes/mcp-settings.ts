import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { toolEstimates } from "../../mcp/tool-estimates";
import {
  ConnectionSchema,
  CreateEndpointInput,
  EndpointParam,
  EndpointSchema,
  ToolEstimatesSchema,
} from "../../schemas/mcp";
import { listClients } from "../../services/mcp/clients";
import { createEndpoint, deleteEndpoint, listEndpoints } from "../../services/mcp/endpoints";
import type { ServerDeps } from "../../services/servers/upstreams";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["mcp"];

const list = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/endpoints",
    tags,
    summary: "Your saved MCP endpoints",
    responses: { 200: jsonContent(z.object({ endpoints: z.array(EndpointSchema) }), "Endpoints.") },
  },
);

const create = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: "/v1/endpoints",
    tags,
    summary: "Save an MCP endpoint that pins a project and a mode",
    request: jsonRequest(CreateEndpointInput),
    responses: { 201: jsonContent(EndpointSchema, "The endpoint; its URL is this origin plus `path`.") },
  },
);

const remove = defineRoute(
  { scope: "admin" },
  {
    method: "delete",
    path: "/v1/endpoints/{id}",
    tags,
    summary: "Delete a saved endpoint; clients using it get 404",
    request: { params: EndpointParam },
    responses: { 204: { description: "Deleted." }, 404: errorResponse("No such endpoint among yours.") },
  },
);

const estimates = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/endpoints/tool-estimates",
    tags,
    summary: "Estimated tokens of each MCP URL's tool listing, full against lazy (?tools=lazy)",
    description:
      "For the MCP URL and each saved endpoint: what its tools/list would cost a client per turn (its definitions at about four characters a token), listing every active remote server tool or, in lazy mode, find_tools and call_tool instead.",
    responses: { 200: jsonContent(ToolEstimatesSchema, "The estimates.") },
  },
);

const connections = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/connections",
    tags,
    summary: "Recent MCP client connections (client, era, project, mode, last seen)",
    responses: {
      200: jsonContent(z.object({ connections: z.array(ConnectionSchema) }), "Connections, most recent first."),
    },
  },
);

export function registerMcpSettings(app: OpenAPIHono<AppEnv>, serverDeps: ServerDeps) {
  app.openapi(list, async (c) => c.json({ endpoints: await listEndpoints({ ctx: actionContext(c) }) }, 200));
  // The listings are the MCP layer's tool definitions: see mcp/tool-estimates.ts for why it is called from here.
  app.openapi(estimates, async (c) => c.json(await toolEstimates({ ctx: actionContext(c), deps: serverDeps }), 200));
  app.openapi(create, async (c) =>
    c.json(await createEndpoint({ ctx: actionContext(c), input: c.req.valid("json") }), 201),
  );
  app.openapi(remove, async (c) => {
    await deleteEndpoint({ ctx: actionContext(c), id: c.req.valid("param").id });
    return c.body(null, 204);
  });
  app.openapi(connections, async (c) => {
    const ctx = actionContext(c);
    return c.json({ connections: await listClients(ctx.db, ctx.principal.userId) }, 200);
  });
}

import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { MAX_TOOLS_PER_SERVER } from "@loadout/workers";
import { WorkspaceParam } from "../../schemas/common";
import {
  ApproveServerItemsInput,
  ApproveServerToolsInput,
  ImportServersInput,
  ImportServersResult,
  ServerItemSchema,
  ServerItemsResult,
  ServerParams,
  ServerSchema,
  ServerToolParams,
  ServerToolSchema,
  ServerToolsResult,
  UpdateServerInput,
  UpdateServerItemInput,
  UpdateServerToolInput,
} from "../../schemas/servers";
import { RevisionQuery } from "../../schemas/skills";
import { MAX_SERVERS_PER_SESSION } from "../../services/mcp/proxied";
import { approveServerItems, listServerItems, updateServerItem } from "../../services/servers/item-settings";
import {
  getServer,
  importServers,
  listServers,
  removeServer,
  type ServerDeps,
  updateServer,
} from "../../services/servers/records";
import { testServer } from "../../services/servers/test";
import { approveServerTools, listServerTools, updateServerTool } from "../../services/servers/tools";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["servers"];
const base = "/v1/workspaces/{ws}/servers";

const list = defineRoute(
  { scope: "servers:read" },
  {
    method: "get",
    path: base,
    tags,
    summary: "The workspace's remote MCP servers (header values masked)",
    request: { params: WorkspaceParam },
    responses: {
      200: jsonContent(
        z.object({
          servers: z.array(ServerSchema),
          limits: z.object({
            serversPerSession: z.number().int().openapi({
              description: "Active servers a session serves: the earliest added (then by slug); the rest are skipped.",
            }),
            toolsPerServer: z.number().int(),
          }),
        }),
        "Servers, and the ceilings sessions apply to them.",
      ),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

const importRoute = defineRoute(
  { scope: "servers:write" },
  {
    method: "post",
    path: `${base}/import`,
    tags,
    summary: "Import servers from a pasted mcpServers block; each entry imports or is skipped with its reason",
    request: { params: WorkspaceParam, ...jsonRequest(ImportServersInput) },
    responses: {
      200: jsonContent(ImportServersResult, "What was imported and what was skipped, and why."),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

const get = defineRoute(
  { scope: "servers:read" },
  {
    method: "get",
    path: `${base}/{slug}`,
    tags,
    summary: "One server (header values masked)",
    request: { params: ServerParams },
    responses: { 200: jsonContent(ServerSchema, "The server."), 404: errorResponse("No such server for the caller.") },
  },
);

const update = defineRoute(
  { scope: "servers:write" },
  {
    method: "patch",
    path: `${base}/{slug}`,
    tags,
    summary: "Edit a server (name the revision you edit); changing URL, transport or headers resets its status",
    request: { params: ServerParams, ...jsonRequest(UpdateServerInput) },
    responses: {
      200: jsonContent(ServerSchema, "The server after the edit."),
      404: errorResponse("No such server for the caller."),
      409: errorResponse("The revision is stale."),
    },
  },
);

const remove = defineRoute(
  { scope: "servers:write" },
  {
    method: "delete",
    path: `${base}/{slug}`,
    tags,
    summary: "Remove a server",
    request: { params: ServerParams, query: RevisionQuery },
    responses: {
      204: { description: "Removed." },
      404: errorResponse("No such server for the caller."),
      409: errorResponse("The revision is stale."),
    },
  },
);

const test = defineRoute(
  { scope: "servers:write" },
  {
    method: "post",
    path: `${base}/{slug}/test`,
    tags,
    summary: "Connect afresh, fetch and cache the server's tools, and record the outcome as its status",
    request: { params: ServerParams },
    responses: {
      200: jsonContent(
        z.object({ server: ServerSchema, tools: ServerToolsResult, error: z.string().nullable() }),
        "The outcome; a failure is reported in `error` and as the server's status.",
      ),
      404: errorResponse("No such server for the caller."),
    },
  },
);

const tools = defineRoute(
  { scope: "servers:read" },
  {
    method: "get",
    path: `${base}/{slug}/tools`,
    tags,
    summary: "The server's cached tools, with each one's settings and pin state",
    request: { params: ServerParams },
    responses: {
      200: jsonContent(ServerToolsResult, "The tools as last fetched."),
      404: errorResponse("No such server for the caller."),
    },
  },
);

const updateTool = defineRoute(
  { scope: "servers:write" },
  {
    method: "patch",
    path: `${base}/{slug}/tools/{tool}`,
    tags,
    summary: "Switch a tool on or off, or set the actions it may run in plan and goal modes",
    request: { params: ServerToolParams, ...jsonRequest(UpdateServerToolInput) },
    responses: {
      200: jsonContent(ServerToolSchema, "The tool after the change."),
      400: errorResponse("An action the tool does not have."),
      404: errorResponse("No such server or tool for the caller."),
    },
  },
);

const approveTools = defineRoute(
  { scope: "servers:write" },
  {
    method: "post",
    path: `${base}/{slug}/tools/approve`,
    tags,
    summary: "Approve tools as they are now (pin their definitions); new and changed tools are withheld until then",
    request: { params: ServerParams, ...jsonRequest(ApproveServerToolsInput) },
    responses: {
      200: jsonContent(ServerToolsResult, "The tools after approval."),
      400: errorResponse("A tool the server does not have."),
      404: errorResponse("No such server for the caller."),
    },
  },
);

const items = defineRoute(
  { scope: "servers:read" },
  {
    method: "get",
    path: `${base}/{slug}/items`,
    tags,
    summary:
      "The server's resources, resource templates, prompts and skills as last listed, with each one's settings and pin state",
    request: { params: ServerParams },
    responses: {
      200: jsonContent(ServerItemsResult, "The items as last listed."),
      404: errorResponse("No such server for the caller."),
    },
  },
);

const updateItem = defineRoute(
  { scope: "servers:write" },
  {
    method: "patch",
    path: `${base}/{slug}/items`,
    tags,
    summary: "Switch a resource, template or prompt on or off, or mark it safe for plan and goal modes",
    request: { params: ServerParams, ...jsonRequest(UpdateServerItemInput) },
    responses: {
      200: jsonContent(ServerItemSchema, "The item after the change."),
      404: errorResponse("No such server or item for the caller."),
    },
  },
);

const approveItems = defineRoute(
  { scope: "servers:write" },
  {
    method: "post",
    path: `${base}/{slug}/items/approve`,
    tags,
    summary: "Approve resources, templates and prompts as they are now; new and changed ones are withheld until then",
    request: { params: ServerParams, ...jsonRequest(ApproveServerItemsInput) },
    responses: {
      200: jsonContent(ServerItemsResult, "The items after approval."),
      400: errorResponse("An item the server does not offer."),
      404: errorResponse("No such server for the caller."),
    },
  },
);

export function registerServers(app: OpenAPIHono<AppEnv>, serverDeps: ServerDeps) {
  app.openapi(list, async (c) =>
    c.json(
      {
        servers: await listServers({ ctx: actionContext(c), ws: c.req.valid("param").ws, deps: serverDeps }),
        limits: { serversPerSession: MAX_SERVERS_PER_SESSION, toolsPerServer: MAX_TOOLS_PER_SERVER },
      },
      200,
    ),
  );
  app.openapi(importRoute, async (c) =>
    c.json(
      await importServers({
        ctx: actionContext(c),
        ws: c.req.valid("param").ws,
        text: c.req.valid("json").text,
        deps: serverDeps,
      }),
      200,
    ),
  );
  app.openapi(get, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await getServer({ ctx: actionContext(c), ws, slug, deps: serverDeps }), 200);
  });
  app.openapi(update, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(
      await updateServer({ ctx: actionContext(c), ws, slug, input: c.req.valid("json"), deps: serverDeps }),
      200,
    );
  });
  app.openapi(test, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await testServer({ ctx: actionContext(c), ws, slug, deps: serverDeps }), 200);
  });
  app.openapi(tools, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await listServerTools({ ctx: actionContext(c), ws, slug }), 200);
  });
  app.openapi(updateTool, async (c) => {
    const { ws, slug, tool } = c.req.valid("param");
    return c.json(await updateServerTool({ ctx: actionContext(c), ws, slug, tool, input: c.req.valid("json") }), 200);
  });
  app.openapi(approveTools, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await approveServerTools({ ctx: actionContext(c), ws, slug, tools: c.req.valid("json").tools }), 200);
  });
  app.openapi(items, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await listServerItems({ ctx: actionContext(c), ws, slug }), 200);
  });
  app.openapi(updateItem, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await updateServerItem({ ctx: actionContext(c), ws, slug, input: c.req.valid("json") }), 200);
  });
  app.openapi(approveItems, async (c) => {
    const { ws, slug } = c.req.valid("param");
    return c.json(await approveServerItems({ ctx: actionContext(c), ws, slug, items: c.req.valid("json").items }), 200);
  });
  app.openapi(remove, async (c) => {
    const { ws, slug } = c.req.valid("param");
    await removeServer({
      ctx: actionContext(c),
      ws,
      slug,
      revision: c.req.valid("query").revision,
      deps: serverDeps,
    });
    return c.body(null, 204);
  });
}

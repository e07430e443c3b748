import type { OpenAPIHono } from "@hono/zod-openapi";
import { ActivityPage, ActivityQuery, Usage, UsageQuery } from "../../schemas/activity";
import { WorkspaceParam } from "../../schemas/common";
import { listActivity } from "../../services/activity/list";
import { usageOf } from "../../services/activity/usage";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["activity"];

const listRoute = defineRoute(
  { scope: "admin" },
  {
    method: "get",
    path: "/v1/workspaces/{ws}/activity",
    tags,
    summary: "The workspace's activity, newest first: changes (the audit log) and MCP calls",
    request: { params: WorkspaceParam, query: ActivityQuery },
    responses: {
      200: jsonContent(ActivityPage, "A page of events."),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

const usageRoute = defineRoute(
  { scope: "admin" },
  {
    method: "get",
    path: "/v1/workspaces/{ws}/activity/usage",
    tags,
    summary: "MCP calls per day by client and by tool, and the count of errors and refusals",
    request: { params: WorkspaceParam, query: UsageQuery },
    responses: {
      200: jsonContent(Usage, "The last `days` days (UTC), oldest first."),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

export function registerActivity(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) =>
    c.json(
      await listActivity({ ctx: actionContext(c), ws: c.req.valid("param").ws, query: c.req.valid("query") }),
      200,
    ),
  );
  app.openapi(usageRoute, async (c) =>
    c.json(await usageOf({ ctx: actionContext(c), ws: c.req.valid("param").ws, days: c.req.valid("query").days }), 200),
  );
}

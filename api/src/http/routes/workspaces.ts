import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { WorkspaceParam } from "../../schemas/common";
import { CreateWorkspaceInput, WorkspaceSchema } from "../../schemas/workspaces";
import { reachableWorkspaces, resolveWorkspace } from "../../services/workspaces/access";
import { createWorkspace } from "../../services/workspaces/create";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["workspaces"];

const listRoute = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/workspaces",
    tags,
    summary: "The workspaces the caller reaches",
    responses: {
      200: jsonContent(z.object({ workspaces: z.array(WorkspaceSchema) }), "Workspaces with the caller's role."),
    },
  },
);

const createRouteDef = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: "/v1/workspaces",
    tags,
    summary: "Create a team workspace; the caller becomes its owner",
    request: jsonRequest(CreateWorkspaceInput),
    responses: {
      201: jsonContent(WorkspaceSchema, "The team."),
      409: errorResponse("The slug is taken."),
    },
  },
);

const getRoute = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/workspaces/{ws}",
    tags,
    summary: "One workspace (`me` for the personal one)",
    request: { params: WorkspaceParam },
    responses: {
      200: jsonContent(WorkspaceSchema, "The workspace."),
      404: errorResponse("No such workspace, or not one the caller reaches."),
    },
  },
);

export function registerWorkspaces(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const ctx = actionContext(c);
    return c.json({ workspaces: await reachableWorkspaces(ctx.db, ctx.principal) }, 200);
  });
  app.openapi(createRouteDef, async (c) =>
    c.json(await createWorkspace({ ctx: actionContext(c), input: c.req.valid("json") }), 201),
  );
  app.openapi(getRoute, async (c) => {
    const ctx = actionContext(c);
    return c.json(await resolveWorkspace(ctx.db, ctx.principal, c.req.valid("param").ws), 200);
  });
}

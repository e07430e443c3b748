import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { WorkspaceParam } from "../../schemas/common";
import { AddProjectInput, ProjectParams, ProjectSchema } from "../../schemas/skills";
import { addProject, listProjects, removeProject } from "../../services/projects/projects";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["projects"];

const list = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: "/v1/workspaces/{ws}/projects",
    tags,
    summary: "The workspace's known project paths (for scopes)",
    request: { params: WorkspaceParam },
    responses: {
      200: jsonContent(z.object({ projects: z.array(ProjectSchema) }), "Projects."),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

const add = defineRoute(
  { scope: "skills:write" },
  {
    method: "post",
    path: "/v1/workspaces/{ws}/projects",
    tags,
    summary: "Add a project path (normalised; adding a known one returns it)",
    request: { params: WorkspaceParam, ...jsonRequest(AddProjectInput) },
    responses: {
      201: jsonContent(ProjectSchema, "Added."),
      200: jsonContent(ProjectSchema, "Already known."),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

const remove = defineRoute(
  { scope: "skills:write" },
  {
    method: "delete",
    path: "/v1/workspaces/{ws}/projects/{id}",
    tags,
    summary: "Forget a project path (scopes that name it keep it)",
    request: { params: ProjectParams },
    responses: { 204: { description: "Removed." }, 404: errorResponse("No such project for the caller.") },
  },
);

export function registerProjects(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) =>
    c.json({ projects: await listProjects({ ctx: actionContext(c), ws: c.req.valid("param").ws }) }, 200),
  );
  app.openapi(add, async (c) => {
    const { project, created } = await addProject({
      ctx: actionContext(c),
      ws: c.req.valid("param").ws,
      path: c.req.valid("json").path,
    });
    return created ? c.json(project, 201) : c.json(project, 200);
  });
  app.openapi(remove, async (c) => {
    const { ws, id } = c.req.valid("param");
    await removeProject({ ctx: actionContext(c), ws, id });
    return c.body(null, 204);
  });
}

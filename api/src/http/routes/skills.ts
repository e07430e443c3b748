import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { AppError } from "../../errors";
import { WorkspaceParam } from "../../schemas/common";
import {
  CreateSkillInput,
  FileQuery,
  ImportSkillInput,
  ListSkillsQuery,
  RestoreInput,
  RevisionQuery,
  SkillDetail,
  SkillKind,
  SkillList,
  SkillParams,
  UpdateSkillInput,
  VersionDetail,
  VersionParams,
  VersionSummary,
} from "../../schemas/skills";
import { createSkill } from "../../services/skills/create";
import { importArchive, importDocument } from "../../services/skills/import";
import { getSkill, listSkills, readSkillFile } from "../../services/skills/read";
import { removeSkill } from "../../services/skills/remove";
import { updateSkill } from "../../services/skills/update";
import { getVersion, listVersions, restoreVersion } from "../../services/skills/versions";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["skills"];
const base = "/v1/workspaces/{ws}/skills";
/** A 16 MiB skill sent as base64 JSON is about 22 MiB. */
const CONTENT_BODY_LIMIT = 24 * 1024 * 1024;
const ARCHIVE_TYPES = ["application/zip", "application/x-zip-compressed", "application/octet-stream"];

const contentErrors = {
  404: errorResponse("No such workspace, item or file for the caller."),
  409: errorResponse("The name is taken, or the revision is stale."),
  413: errorResponse("A file, the item or the workspace quota is over its limit."),
};
const binary = (description: string) => ({
  description,
  content: { "application/octet-stream": { schema: z.string().openapi({ format: "binary" }) } },
});

const list = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: base,
    tags,
    summary: "List skills and personas (by name, paginated)",
    request: { params: WorkspaceParam, query: ListSkillsQuery },
    responses: {
      200: jsonContent(SkillList, "A page of items."),
      404: errorResponse("No such workspace for the caller."),
    },
  },
);

const create = defineRoute(
  { scope: "skills:write" },
  {
    method: "post",
    path: base,
    tags,
    summary: "Create a skill or persona from fields",
    request: { params: WorkspaceParam, ...jsonRequest(CreateSkillInput) },
    responses: { 201: jsonContent(SkillDetail, "The new item."), ...contentErrors },
  },
  { bodyLimit: CONTENT_BODY_LIMIT },
);

const importRoute = defineRoute(
  { scope: "skills:write" },
  {
    method: "post",
    path: `${base}/import`,
    tags,
    summary:
      "Import a pasted SKILL.md / PERSONA.md (JSON), or a .zip/.skill archive of a skill folder (application/zip, ?kind=)",
    request: {
      params: WorkspaceParam,
      query: z.object({ kind: SkillKind.optional() }),
      body: {
        required: false,
        content: {
          "application/json": { schema: ImportSkillInput },
          "application/zip": { schema: z.string().openapi({ format: "binary" }) },
        },
      },
    },
    responses: { 201: jsonContent(SkillDetail, "The imported item."), ...contentErrors },
  },
  { bodyLimit: CONTENT_BODY_LIMIT, rawBody: ARCHIVE_TYPES },
);

const get = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: `${base}/{name}`,
    tags,
    summary: "One item: its document, frontmatter, body and files with sizes and digests",
    request: { params: SkillParams },
    responses: { 200: jsonContent(SkillDetail, "The item."), 404: errorResponse("No such item for the caller.") },
  },
);

const file = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: `${base}/{name}/file`,
    tags,
    summary: "One file's bytes, from the current version",
    request: { params: SkillParams, query: FileQuery },
    responses: { 200: binary("The file, as a download."), 404: errorResponse("No such item or file for the caller.") },
  },
);

const update = defineRoute(
  { scope: "skills:write" },
  {
    method: "patch",
    path: `${base}/{name}`,
    tags,
    summary: "Edit description, instructions, files, enabled or scope (name the revision you edit)",
    request: { params: SkillParams, ...jsonRequest(UpdateSkillInput) },
    responses: { 200: jsonContent(SkillDetail, "The item after the edit."), ...contentErrors },
  },
  { bodyLimit: CONTENT_BODY_LIMIT },
);

const remove = defineRoute(
  { scope: "skills:write" },
  {
    method: "delete",
    path: `${base}/{name}`,
    tags,
    summary: "Remove an item and its history",
    request: { params: SkillParams, query: RevisionQuery },
    responses: {
      204: { description: "Removed." },
      404: errorResponse("No such item for the caller."),
      409: errorResponse("The revision is stale."),
    },
  },
);

const versions = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: `${base}/{name}/versions`,
    tags,
    summary: "An item's versions, newest first",
    request: { params: SkillParams },
    responses: {
      200: jsonContent(z.object({ versions: z.array(VersionSummary) }), "Versions."),
      404: errorResponse("No such item for the caller."),
    },
  },
);

const version = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: `${base}/{name}/versions/{version}`,
    tags,
    summary: "One version: its document and files",
    request: { params: VersionParams },
    responses: {
      200: jsonContent(VersionDetail, "The version."),
      404: errorResponse("No such item or version for the caller."),
    },
  },
);

const versionFile = defineRoute(
  { scope: "skills:read" },
  {
    method: "get",
    path: `${base}/{name}/versions/{version}/file`,
    tags,
    summary: "One file's bytes, from an earlier version",
    request: { params: VersionParams, query: FileQuery },
    responses: {
      200: binary("The file, as a download."),
      404: errorResponse("No such item, version or file for the caller."),
    },
  },
);

const restore = defineRoute(
  { scope: "skills:write" },
  {
    method: "post",
    path: `${base}/{name}/versions/{version}/restore`,
    tags,
    summary: "Make an earlier version current again (as a new version)",
    request: { params: VersionParams, ...jsonRequest(RestoreInput) },
    responses: { 200: jsonContent(SkillDetail, "The item after the restore."), ...contentErrors },
  },
);

/** Skill files are user content: always a download, never rendered on Loadout's origin. */
function download(c: Context<AppEnv>, path: string, result: { bytes: Uint8Array; digest: string }) {
  const filename = (path.split("/").pop() ?? "file").replace(/[^\w.-]/g, "_");
  const text = /\.(md|markdown|txt|json|ya?ml|toml|csv|py|js|ts|sh|rb|go|rs|sql)$/i.test(path);
  return c.body(result.bytes as Uint8Array<ArrayBuffer>, 200, {
    "Content-Type": text ? "text/plain; charset=utf-8" : "application/octet-stream",
    "Content-Disposition": `attachment; filename="${filename}"`,
    "Content-Security-Policy": "default-src 'none'; sandbox",
    ETag: `"${result.digest}"`,
    "Cache-Control": "private, no-cache",
  });
}

export function registerSkills(app: OpenAPIHono<AppEnv>) {
  app.openapi(list, async (c) => {
    const { ws } = c.req.valid("param");
    return c.json(await listSkills({ ctx: actionContext(c), ws, query: c.req.valid("query") }), 200);
  });
  app.openapi(create, async (c) =>
    c.json(await createSkill({ ctx: actionContext(c), ws: c.req.valid("param").ws, input: c.req.valid("json") }), 201),
  );
  app.openapi(importRoute, async (c) => {
    const ctx = actionContext(c);
    const { ws } = c.req.valid("param");
    const archive = c.get("rawBody");
    if (archive)
      return c.json(await importArchive({ ctx, ws, kind: c.req.valid("query").kind ?? "skill", archive }), 201);
    const parsed = ImportSkillInput.safeParse(await c.req.json());
    if (!parsed.success)
      throw new AppError("invalid_request", "The request body is not valid: send { text } or an archive.", {
        details: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message })),
      });
    return c.json(await importDocument({ ctx, ws, input: parsed.data }), 201);
  });
  app.openapi(get, async (c) => {
    const { ws, name } = c.req.valid("param");
    return c.json(await getSkill({ ctx: actionContext(c), ws, name }), 200);
  });
  app.openapi(file, async (c) => {
    const { ws, name } = c.req.valid("param");
    const { path } = c.req.valid("query");
    return download(c, path, await readSkillFile({ ctx: actionContext(c), ws, name, path }));
  });
  app.openapi(update, async (c) => {
    const { ws, name } = c.req.valid("param");
    return c.json(await updateSkill({ ctx: actionContext(c), ws, name, input: c.req.valid("json") }), 200);
  });
  app.openapi(remove, async (c) => {
    const { ws, name } = c.req.valid("param");
    await removeSkill({ ctx: actionContext(c), ws, name, revision: c.req.valid("query").revision });
    return c.body(null, 204);
  });
  app.openapi(versions, async (c) => {
    const { ws, name } = c.req.valid("param");
    return c.json({ versions: await listVersions({ ctx: actionContext(c), ws, name }) }, 200);
  });
  app.openapi(version, async (c) => {
    const { ws, name, version: v } = c.req.valid("param");
    return c.json(await getVersion({ ctx: actionContext(c), ws, name, version: v }), 200);
  });
  app.openapi(versionFile, async (c) => {
    const { ws, name, version: v } = c.req.valid("param");
    const { path } = c.req.valid("query");
    return download(c, path, await readSkillFile({ ctx: actionContext(c), ws, name, path, version: v }));
  });
  app.openapi(restore, async (c) => {
    const { ws, name, version: v } = c.req.valid("param");
    return c.json(
      await restoreVersion({ ctx: actionContext(c), ws, name, version: v, revision: c.req.valid("json").revision }),
      200,
    );
  });
}

import { skills } from "@loadout/db";
import { and, asc, eq, gt, ilike, or, type SQL, sql } from "drizzle-orm";
import { normalizeProjectPath } from "../../domain/activation";
import { decodeCursor, encodeCursor } from "../../domain/cursor";
import { AppError, notFound } from "../../errors";
import type { ListSkillsQuery, SkillDetail, SkillSummary } from "../../schemas/skills";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { findSkill, readBlob, versionManifest } from "./lookup";
import { detailOf, summaryOf } from "./views";

export async function getSkill({
  ctx,
  ws,
  name,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
}): Promise<SkillDetail> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  return detailOf(ctx.db, await findSkill(ctx.db, workspace.id, name));
}

/** One file of the current version, or of `version` when given. */
export async function readSkillFile({
  ctx,
  ws,
  name,
  path,
  version,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
  path: string;
  version?: number;
}): Promise<{ bytes: Uint8Array; digest: string }> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const row = await findSkill(ctx.db, workspace.id, name);
  const manifest = await versionManifest(ctx.db, workspace.id, row.id, version ?? row.version);
  if (!manifest) throw notFound(`Version ${version} of "${name}"`);
  const file = manifest.files.find((f) => f.path === path);
  if (!file) throw notFound(`File "${path}" of "${name}"`);
  return { bytes: await readBlob(ctx.db, workspace.id, file.digest), digest: file.digest };
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** A page of a workspace's items by name, filtered by kind, state, project and text. */
export async function listSkills({
  ctx,
  ws,
  query,
}: {
  ctx: ActionContext;
  ws: string;
  query: ListSkillsQuery;
}): Promise<{ items: SkillSummary[]; nextCursor: string | null }> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const conditions: SQL[] = [eq(skills.workspaceId, workspace.id)];
  if (query.kind) conditions.push(eq(skills.kind, query.kind));
  if (query.state === "off") conditions.push(eq(skills.enabled, false));
  if (query.state === "global")
    conditions.push(and(eq(skills.enabled, true), sql`${skills.scopeMode} <> 'projects'`) as SQL);
  if (query.state === "projects")
    conditions.push(and(eq(skills.enabled, true), eq(skills.scopeMode, "projects")) as SQL);
  if (query.project) {
    // The same rule as isActiveInProject, in SQL so that pages stay whole: stored scopes are
    // normalised, so a project matches a scoped path equal to it or below it.
    const project = normalizeProjectPath(query.project);
    conditions.push(
      sql`${skills.enabled} and (${skills.scopeMode} <> 'projects' or exists (
        select 1 from unnest(${skills.scopeProjects}) as p(path)
        where p.path = ${project} or starts_with(${project}, case when right(p.path, 1) = '/' then p.path else p.path || '/' end)))`,
    );
  }
  if (query.q) {
    const pattern = `%${escapeLike(query.q)}%`;
    conditions.push(or(ilike(skills.name, pattern), ilike(skills.description, pattern)) as SQL);
  }
  if (query.cursor) {
    const after = decodeCursor(query.cursor)?.name;
    if (typeof after !== "string") {
      throw new AppError("invalid_request", "cursor is not one this API gave out; start again without it.", {
        details: [{ path: "cursor", message: "not valid" }],
      });
    }
    conditions.push(gt(skills.name, after));
  }
  const rows = await ctx.db
    .select()
    .from(skills)
    .where(and(...conditions))
    .orderBy(asc(skills.name))
    .limit(query.limit + 1);
  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    items: page.map(summaryOf),
    nextCursor: rows.length > query.limit && last ? encodeCursor({ name: last.name }) : null,
  };
}

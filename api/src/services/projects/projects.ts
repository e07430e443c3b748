import { type Database, newId, projects } from "@loadout/db";
import { and, asc, eq } from "drizzle-orm";
import { normalizeProjectPath } from "../../domain/activation";
import { AppError, notFound } from "../../errors";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";

export interface ProjectView {
  id: string;
  path: string;
  source: "user" | "session";
  createdAt: string;
}

const view = (row: typeof projects.$inferSelect): ProjectView => ({
  id: row.id,
  path: row.path,
  source: row.source,
  createdAt: row.createdAt.toISOString(),
});

/** A workspace's known projects, for the scope picker. */
export async function listProjects({ ctx, ws }: { ctx: ActionContext; ws: string }): Promise<ProjectView[]> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const rows = await ctx.db
    .select()
    .from(projects)
    .where(eq(projects.workspaceId, workspace.id))
    .orderBy(asc(projects.path))
    .limit(1000);
  return rows.map(view);
}

/** Adds a project path (normalised); adding a known one returns it unchanged. */
export async function addProject({
  ctx,
  ws,
  path,
}: {
  ctx: ActionContext;
  ws: string;
  path: string;
}): Promise<{ project: ProjectView; created: boolean }> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const normalized = normalizeProjectPath(path);
  if (!normalized)
    throw new AppError(
      "invalid_request",
      "path is empty once normalised; give a folder path such as /home/ada/code/app.",
      { details: [{ path: "path", message: "empty" }] },
    );
  return ctx.db.transaction(async (tx) => {
    const existing = await findByPath(tx, workspace.id, normalized);
    if (existing) return { project: view(existing), created: false };
    const row = {
      id: newId("project", ctx.now.getTime()),
      workspaceId: workspace.id,
      path: normalized,
      source: "user" as const,
      createdAt: ctx.now,
    };
    await tx.insert(projects).values(row).onConflictDoNothing();
    const stored = await findByPath(tx, workspace.id, normalized);
    if (!stored) throw new Error("project vanished after insert");
    if (stored.id === row.id) {
      await recordEvent(tx, ctx, {
        workspaceId: workspace.id,
        action: "project.added",
        targetType: "project",
        targetId: row.id,
        data: { path: normalized },
      });
    }
    return { project: view(stored), created: stored.id === row.id };
  });
}

export async function removeProject({ ctx, ws, id }: { ctx: ActionContext; ws: string; id: string }): Promise<void> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(projects)
      .where(and(eq(projects.id, id), eq(projects.workspaceId, workspace.id)))
      .returning();
    if (!row) throw notFound(`Project "${id}"`);
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "project.removed",
      targetType: "project",
      targetId: row.id,
      data: { path: row.path },
    });
  });
}

async function findByPath(db: Database, workspaceId: string, path: string) {
  const [row] = await db
    .select()
    .from(projects)
    .where(and(eq(projects.workspaceId, workspaceId), eq(projects.path, path)))
    .limit(1);
  return row;
}

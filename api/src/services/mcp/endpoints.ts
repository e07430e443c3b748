import { mcpEndpoints, newId } from "@loadout/db";
import { and, desc, eq } from "drizzle-orm";
import { normalizeProjectPath } from "../../domain/activation";
import { AppError, notFound } from "../../errors";
import type { CreateEndpointInput, EndpointView } from "../../schemas/mcp";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { personalWorkspaceId } from "../workspaces/access";

type Row = typeof mcpEndpoints.$inferSelect;
const view = (row: Row): EndpointView => ({
  id: row.id,
  name: row.name,
  project: row.project,
  mode: row.mode,
  searchFetch: row.searchFetch,
  lazyTools: row.lazyTools,
  path: `/mcp/e/${row.id}`,
  createdAt: row.createdAt.toISOString(),
});

export async function createEndpoint({
  ctx,
  input,
}: {
  ctx: ActionContext;
  input: CreateEndpointInput;
}): Promise<EndpointView> {
  const workspaceId = await personalWorkspaceId(ctx.db, ctx.principal.userId);
  if (!workspaceId) throw new AppError("unauthorized", "This account has no personal workspace.");
  const project = input.project ? normalizeProjectPath(input.project) || null : null;
  const row: Row = {
    id: newId("endpoint", ctx.now.getTime()),
    workspaceId,
    userId: ctx.principal.userId,
    name: input.name,
    project,
    mode: input.mode ?? "agent",
    searchFetch: input.searchFetch ?? false,
    lazyTools: input.lazyTools ?? false,
    createdAt: ctx.now,
  };
  await ctx.db.transaction(async (tx) => {
    await tx.insert(mcpEndpoints).values(row);
    await recordEvent(tx, ctx, {
      workspaceId,
      action: "endpoint.created",
      targetType: "endpoint",
      targetId: row.id,
      data: { name: row.name, project, mode: row.mode, lazyTools: row.lazyTools },
    });
  });
  return view(row);
}

export async function listEndpoints({ ctx }: { ctx: ActionContext }): Promise<EndpointView[]> {
  const rows = await ctx.db
    .select()
    .from(mcpEndpoints)
    .where(eq(mcpEndpoints.userId, ctx.principal.userId))
    .orderBy(desc(mcpEndpoints.id))
    .limit(200);
  return rows.map(view);
}

export async function deleteEndpoint({ ctx, id }: { ctx: ActionContext; id: string }): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(mcpEndpoints)
      .where(and(eq(mcpEndpoints.id, id), eq(mcpEndpoints.userId, ctx.principal.userId)))
      .returning();
    if (!row) throw notFound(`Endpoint "${id}"`);
    await recordEvent(tx, ctx, {
      workspaceId: row.workspaceId,
      action: "endpoint.deleted",
      targetType: "endpoint",
      targetId: row.id,
      data: { name: row.name },
    });
  });
}

/** The caller's own endpoint, or null: another user's endpoint is as absent as a missing one. */
export async function findEndpoint(ctx: Pick<ActionContext, "db" | "principal">, id: string): Promise<Row | null> {
  const [row] = await ctx.db
    .select()
    .from(mcpEndpoints)
    .where(and(eq(mcpEndpoints.id, id), eq(mcpEndpoints.userId, ctx.principal.userId)))
    .limit(1);
  return row ?? null;
}

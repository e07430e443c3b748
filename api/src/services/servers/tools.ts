import { mcpServerTools } from "@loadout/db";
import { and, asc, eq, inArray } from "drizzle-orm";
import { actionValues, pinState, planSafeProblem } from "../../domain/servers/tools";
import { AppError, notFound } from "../../errors";
import type { ServerToolsView, ServerToolView, UpdateServerToolInput } from "../../schemas/servers";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { bumpCatalog } from "./catalog-version";
import { findServer } from "./records";
import type { ServerRow, ServerToolRow } from "./upstreams";

export function toolView(row: ServerToolRow): ServerToolView {
  const approved = row.approvedDefinition;
  return {
    name: row.name,
    exposedName: row.exposedName,
    title: row.title,
    description: row.description,
    inputSchema: row.inputSchema,
    annotations: row.annotations,
    enabled: row.enabled,
    planSafeActions: row.planSafeActions,
    actions: actionValues(row.inputSchema),
    pin: pinState(row.hash, row.approvedHash),
    approved: approved
      ? { title: approved.title, description: approved.description, inputSchema: approved.inputSchema }
      : null,
  };
}

export async function toolRows(ctx: ActionContext, server: ServerRow): Promise<ServerToolRow[]> {
  return ctx.db
    .select()
    .from(mcpServerTools)
    .where(and(eq(mcpServerTools.serverId, server.id), eq(mcpServerTools.workspaceId, server.workspaceId)))
    .orderBy(asc(mcpServerTools.position));
}

export function toolsView(
  server: ServerRow,
  rows: ServerToolRow[],
  refused: { name: string; reason: string }[] = [],
): ServerToolsView {
  return {
    tools: rows.map(toolView),
    fetchedAt: server.toolsFetchedAt?.toISOString() ?? null,
    truncated: server.toolsTruncated,
    refused,
  };
}

/** The cached tool list of a server, with the user's settings and each tool's pin state. */
export async function listServerTools({
  ctx,
  ws,
  slug,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
}): Promise<ServerToolsView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  return toolsView(server, await toolRows(ctx, server));
}

async function findTool(ctx: ActionContext, server: ServerRow, name: string, forUpdate = false) {
  const query = ctx.db
    .select()
    .from(mcpServerTools)
    .where(and(eq(mcpServerTools.serverId, server.id), eq(mcpServerTools.name, name)))
    .limit(1);
  const [row] = forUpdate ? await query.for("update") : await query;
  if (!row) throw notFound(`Tool "${name}" of server "${server.slug}"`, "Test the server to fetch its tools.");
  return row;
}

/** Switches a tool on or off, or sets the actions it may run in plan and goal modes. */
export async function updateServerTool({
  ctx,
  ws,
  slug,
  tool,
  input,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  tool: string;
  input: UpdateServerToolInput;
}): Promise<ServerToolView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  const updated = await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const row = await findTool({ ...ctx, db: tx }, server, tool, true);
    if (input.planSafeActions !== undefined) {
      const problem = planSafeProblem(row.inputSchema, input.planSafeActions);
      if (problem)
        throw new AppError("invalid_request", `planSafeActions: ${problem}.`, {
          details: [{ path: "planSafeActions", message: problem }],
        });
    }
    const [result] = await tx
      .update(mcpServerTools)
      .set({
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.planSafeActions !== undefined ? { planSafeActions: input.planSafeActions } : {}),
      })
      .where(and(eq(mcpServerTools.serverId, server.id), eq(mcpServerTools.name, tool)))
      .returning();
    await bumpCatalog(tx, workspace.id);
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.tool_updated",
      targetType: "server",
      targetId: server.id,
      data: { slug, tool, ...input },
    });
    return result ?? row;
  });
  return toolView(updated);
}

/**
 * Approves tools as they are now: their pinned hash becomes the current one and the definition is
 * kept for later comparison. Plan-safe actions that the new definition no longer has are dropped.
 */
export async function approveServerTools({
  ctx,
  ws,
  slug,
  tools,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  tools: string[] | undefined;
}): Promise<ServerToolsView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  const rows = await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const current = await tx
      .select()
      .from(mcpServerTools)
      .where(
        and(
          eq(mcpServerTools.serverId, server.id),
          ...(tools ? [inArray(mcpServerTools.name, tools.length ? tools : [""])] : []),
        ),
      )
      .for("update");
    const unknown = (tools ?? []).filter((name) => !current.some((r) => r.name === name));
    if (unknown.length)
      throw new AppError(
        "invalid_request",
        `Server "${slug}" has no tool ${unknown.map((n) => `"${n}"`).join(", ")}; test it to fetch its current tools.`,
        { details: unknown.map((n) => ({ path: "tools", message: `no tool "${n}"` })) },
      );
    const pending = current.filter((r) => r.approvedHash !== r.hash);
    for (const row of pending) {
      const actions = actionValues(row.inputSchema);
      const planSafeActions = row.planSafeActions.filter((a) => (actions === null ? a === "*" : actions.includes(a)));
      await tx
        .update(mcpServerTools)
        .set({
          approvedHash: row.hash,
          approvedDefinition: {
            title: row.title,
            description: row.description,
            inputSchema: row.inputSchema,
            ...(row.ui ? { ui: row.ui } : {}),
          },
          planSafeActions,
        })
        .where(and(eq(mcpServerTools.serverId, server.id), eq(mcpServerTools.name, row.name)));
    }
    if (pending.length) await bumpCatalog(tx, workspace.id);
    if (pending.length)
      await recordEvent(tx, ctx, {
        workspaceId: workspace.id,
        action: "server.tools_approved",
        targetType: "server",
        targetId: server.id,
        data: { slug, tools: pending.map((r) => ({ name: r.name, hash: r.hash })) },
      });
    return tx
      .select()
      .from(mcpServerTools)
      .where(eq(mcpServerTools.serverId, server.id))
      .orderBy(asc(mcpServerTools.position));
  });
  return toolsView(server, rows);
}

import { type Database, mcpServerItems } from "@loadout/db";
import { and, asc, eq } from "drizzle-orm";
import type { ServerItemKind } from "../../domain/servers/items";
import { pinState } from "../../domain/servers/tools";
import { AppError, notFound } from "../../errors";
import type { ServerItemsView, ServerItemView, UpdateServerItemInput } from "../../schemas/servers";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { bumpCatalog } from "./catalog-version";
import type { ServerItemRow } from "./items";
import { findServer } from "./records";
import type { ServerRow } from "./upstreams";

/** The console's and the REST API's actions on a server's resources, templates and prompts (see items.ts). */

function itemView(row: ServerItemRow): ServerItemView {
  // A skill's name and description are its frontmatter's (the rest of its entry is its manifest).
  const d =
    row.kind === "skill" ? { ...((row.definition.frontmatter ?? {}) as Record<string, unknown>) } : row.definition;
  const text = (v: unknown) => (typeof v === "string" ? v : null);
  return {
    kind: row.kind,
    key: row.key,
    exposedKey: row.exposedKey,
    name: text(d.name) ?? row.key,
    title: text(d.title),
    description: text(d.description) ?? "",
    mimeType: row.kind === "skill" ? "text/markdown" : text(d.mimeType),
    definition: row.definition,
    approved: row.approvedDefinition ?? null,
    pin: pinState(row.hash, row.approvedHash),
    enabled: row.enabled,
    planSafe: row.planSafe,
    problem: row.problem ?? null,
  };
}

async function itemRows(db: Database, server: ServerRow): Promise<ServerItemRow[]> {
  return db
    .select()
    .from(mcpServerItems)
    .where(and(eq(mcpServerItems.serverId, server.id), eq(mcpServerItems.workspaceId, server.workspaceId)))
    .orderBy(asc(mcpServerItems.kind), asc(mcpServerItems.position));
}

/** A server's resources, templates and prompts as last listed, with the user's settings and each pin's state. */
export async function listServerItems({
  ctx,
  ws,
  slug,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
}): Promise<ServerItemsView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  return { items: (await itemRows(ctx.db, server)).map(itemView) };
}

/**
 * Approves items as they are now (the named ones, or every new and changed one): each pinned hash
 * becomes the current one and the definition is kept for later comparison.
 */
export async function approveServerItems({
  ctx,
  ws,
  slug,
  items,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  items: { kind: ServerItemKind; key: string }[] | undefined;
}): Promise<ServerItemsView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  const rows = await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const current = await tx.select().from(mcpServerItems).where(eq(mcpServerItems.serverId, server.id)).for("update");
    const named = (row: ServerItemRow) => !items || items.some((i) => i.kind === row.kind && i.key === row.key);
    const unknown = (items ?? []).filter((i) => !current.some((r) => r.kind === i.kind && r.key === i.key));
    if (unknown.length)
      throw new AppError(
        "invalid_request",
        `Server "${slug}" offers no ${unknown.map((i) => `${i.kind} "${i.key}"`).join(", ")}; test it to fetch what it offers now.`,
        { details: unknown.map((i) => ({ path: "items", message: `no ${i.kind} "${i.key}"` })) },
      );
    const pending = current.filter((r) => named(r) && r.approvedHash !== r.hash);
    for (const row of pending)
      await tx
        .update(mcpServerItems)
        .set({ approvedHash: row.hash, approvedDefinition: row.definition })
        .where(
          and(
            eq(mcpServerItems.serverId, server.id),
            eq(mcpServerItems.kind, row.kind),
            eq(mcpServerItems.key, row.key),
          ),
        );
    if (pending.length) {
      await bumpCatalog(tx, workspace.id);
      await recordEvent(tx, ctx, {
        workspaceId: workspace.id,
        action: "server.items_approved",
        targetType: "server",
        targetId: server.id,
        data: { slug, items: pending.map((r) => ({ kind: r.kind, key: r.key, hash: r.hash })) },
      });
    }
    return itemRows(tx as unknown as Database, server);
  });
  return { items: rows.map(itemView) };
}

/** Switches an item on or off, or marks it safe (or not) for plan and goal modes. */
export async function updateServerItem({
  ctx,
  ws,
  slug,
  input,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  input: UpdateServerItemInput;
}): Promise<ServerItemView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const server = await findServer(ctx.db, workspace.id, slug);
  return ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const where = and(
      eq(mcpServerItems.serverId, server.id),
      eq(mcpServerItems.kind, input.kind),
      eq(mcpServerItems.key, input.key),
    );
    const [row] = await tx
      .update(mcpServerItems)
      .set({
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.planSafe !== undefined ? { planSafe: input.planSafe } : {}),
      })
      .where(where)
      .returning();
    if (!row)
      throw notFound(`${input.kind} "${input.key}" of server "${slug}"`, "Test the server to fetch what it offers.");
    await bumpCatalog(tx, workspace.id);
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.item_updated",
      targetType: "server",
      targetId: server.id,
      data: { slug, ...input },
    });
    return itemView(row);
  });
}

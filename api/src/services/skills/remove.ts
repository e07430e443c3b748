import { skills } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { findSkill } from "./lookup";
import { deleteOrphanBlobs } from "./store";
import { assertRevision } from "./update";

/** Removes an item with its history; only the audit log remembers it. */
export async function removeSkill({
  ctx,
  ws,
  name,
  revision,
}: {
  ctx: ActionContext;
  ws: string;
  name: string;
  revision: number;
}): Promise<void> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const row = await findSkill(tx, workspace.id, name, { forUpdate: true });
    assertRevision(row, revision);
    await tx.delete(skills).where(and(eq(skills.id, row.id), eq(skills.workspaceId, workspace.id)));
    await deleteOrphanBlobs(tx, workspace.id);
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: `${row.kind}.removed`,
      targetType: row.kind,
      targetId: row.id,
      data: { name: row.name, version: row.version },
    });
  });
}

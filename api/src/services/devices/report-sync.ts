import { deviceSyncs, newId } from "@loadout/db";
import { sql } from "drizzle-orm";
import { normalizeProjectPath } from "../../domain/activation";
import { AppError } from "../../errors";
import type { DeviceSyncView, ReportSyncInput } from "../../schemas/devices";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { personalWorkspaceId } from "../workspaces/access";
import { deviceView } from "./view";

/**
 * Records what `loadout sync` wrote on one of the caller's devices, replacing that device's last
 * sync: which clients read which kinds from the folders, for the MCP handshake's fitting and the
 * Connect page. The device is the caller's own (keyed by user), so no one else's sync can fit
 * their handshake.
 */
export async function reportSync({
  ctx,
  input,
}: {
  ctx: ActionContext;
  input: ReportSyncInput;
}): Promise<DeviceSyncView> {
  const deviceId = input.device;
  const workspaceId = await personalWorkspaceId(ctx.db, ctx.principal.userId);
  if (!workspaceId) throw new AppError("unauthorized", "This account has no personal workspace.");
  const row = {
    id: newId("deviceSync", ctx.now.getTime()),
    workspaceId,
    userId: ctx.principal.userId,
    deviceId,
    deviceName: input.name,
    project: input.project ? normalizeProjectPath(input.project) || null : null,
    readers: input.readers.map((r) => ({ client: r.client, kinds: [...new Set(r.kinds)] })),
    written: input.written,
    syncedAt: ctx.now,
  };
  const stored = await ctx.db.transaction(async (tx) => {
    const [saved] = await tx
      .insert(deviceSyncs)
      .values(row)
      .onConflictDoUpdate({
        target: [deviceSyncs.userId, deviceSyncs.deviceId],
        set: {
          deviceName: row.deviceName,
          project: row.project,
          readers: row.readers,
          written: row.written,
          syncedAt: row.syncedAt,
          workspaceId: sql`excluded.workspace_id`,
        },
      })
      .returning();
    if (!saved) throw new Error("device sync was not stored");
    await recordEvent(tx, ctx, {
      workspaceId,
      action: "device.synced",
      targetType: "device",
      targetId: deviceId,
      data: {
        name: row.deviceName,
        project: row.project,
        readers: row.readers,
        written: row.written,
      },
    });
    return saved;
  });
  return deviceView(stored, ctx.now);
}

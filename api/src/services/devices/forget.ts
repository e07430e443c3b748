import { deviceSyncs } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { notFound } from "../../errors";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";

/** Forgets a device's last sync: its clients get the whole instructions block again at once. */
export async function forgetDevice({ ctx, deviceId }: { ctx: ActionContext; deviceId: string }): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .delete(deviceSyncs)
      .where(and(eq(deviceSyncs.userId, ctx.principal.userId), eq(deviceSyncs.deviceId, deviceId)))
      .returning();
    // Another user's device is reported exactly like a missing one.
    if (!row) throw notFound(`Device "${deviceId}"`);
    await recordEvent(tx, ctx, {
      workspaceId: row.workspaceId,
      action: "device.forgotten",
      targetType: "device",
      targetId: deviceId,
      data: { name: row.deviceName },
    });
  });
}

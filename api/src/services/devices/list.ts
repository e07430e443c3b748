import { deviceSyncs } from "@loadout/db";
import { desc, eq } from "drizzle-orm";
import type { DeviceSyncView } from "../../schemas/devices";
import type { ActionContext } from "../context";
import { deviceView } from "./view";

/** The caller's devices with their last sync, most recent first (the Connect page's panel). */
export async function listDevices({ ctx }: { ctx: ActionContext }): Promise<DeviceSyncView[]> {
  const rows = await ctx.db
    .select()
    .from(deviceSyncs)
    .where(eq(deviceSyncs.userId, ctx.principal.userId))
    .orderBy(desc(deviceSyncs.syncedAt))
    .limit(100);
  return rows.map((row) => deviceView(row, ctx.now));
}

import type { deviceSyncs } from "@loadout/db";
import { isSyncFresh } from "../../domain/fitting/fitting";
import type { DeviceSyncView } from "../../schemas/devices";

type Row = typeof deviceSyncs.$inferSelect;

export function deviceView(row: Row, now: Date): DeviceSyncView {
  return {
    deviceId: row.deviceId,
    name: row.deviceName,
    project: row.project,
    readers: row.readers,
    written: row.written,
    syncedAt: row.syncedAt.toISOString(),
    fitting: isSyncFresh(row.syncedAt, now),
  };
}

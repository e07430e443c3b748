import { type Database, deviceSyncs } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { deviceIdOf, folderClientOf, type ItemKind, kindsReadFromFolders } from "../../domain/fitting/fitting";

const NONE: ReadonlySet<ItemKind> = new Set();

/**
 * The kinds of item the handshake leaves out of its instructions for this client on this device
 * (domain/fitting). Reads the database only for a client that reads folders and a request that
 * names a device, so every other handshake costs nothing more.
 */
export async function kindsFittedOut(
  db: Database,
  request: { userId: string; clientName: string | null | undefined; device: string | null | undefined; now: Date },
): Promise<ReadonlySet<ItemKind>> {
  const deviceId = deviceIdOf(request.device);
  if (!deviceId || !folderClientOf(request.clientName)) return NONE;
  const [sync] = await db
    .select({ readers: deviceSyncs.readers, syncedAt: deviceSyncs.syncedAt })
    .from(deviceSyncs)
    .where(and(eq(deviceSyncs.userId, request.userId), eq(deviceSyncs.deviceId, deviceId)))
    .limit(1);
  return kindsReadFromFolders(request.clientName, sync ?? null, request.now);
}

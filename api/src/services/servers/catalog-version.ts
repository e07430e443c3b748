import { type Database, workspaces } from "@loadout/db";
import { eq, inArray, sql } from "drizzle-orm";

/** Marks a workspace's catalog of upstream tools changed: every instance's cached listing goes stale. */
export async function bumpCatalog(db: Database, workspaceId: string): Promise<void> {
  await db
    .update(workspaces)
    .set({ catalogVersion: sql`${workspaces.catalogVersion} + 1` })
    .where(eq(workspaces.id, workspaceId));
}

/** The catalog versions of these workspaces, as one string to compare with a cached listing's. */
export async function catalogStamp(db: Database, ids: readonly string[]): Promise<string> {
  const rows = await db
    .select({ id: workspaces.id, version: workspaces.catalogVersion })
    .from(workspaces)
    .where(inArray(workspaces.id, [...ids]));
  return rows
    .map((r) => `${r.id}:${r.version}`)
    .sort()
    .join(",");
}

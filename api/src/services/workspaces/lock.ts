import { type Database, workspaces } from "@loadout/db";
import { eq } from "drizzle-orm";

/**
 * Serialises the writers of one workspace (skills, servers and their tools, members): call it as
 * the first statement of the write's transaction.
 *
 * `FOR NO KEY UPDATE`, not `FOR UPDATE`: every insert of a row that references the workspace (a
 * skill, a version, a server, an audit event) takes `FOR KEY SHARE` on it for the foreign key
 * check, and `FOR UPDATE` conflicts with that. Two writers that had each inserted such a row
 * and then asked for `FOR UPDATE` waited on each other's share lock: Postgres's "deadlock
 * detected", a 500 for one of them. `FOR NO KEY UPDATE` conflicts with itself (so writers still
 * go one at a time, and the quota and last-owner checks hold) but not with key-share locks; and
 * taken first, before any row lock of the write, every writer asks for its locks in one order.
 */
export async function lockWorkspace(tx: Database, workspaceId: string): Promise<void> {
  await tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspaceId)).for("no key update");
}

import { type Database, mcpServers } from "@loadout/db";
import type { UpstreamTarget } from "@loadout/workers";
import { and, eq } from "drizzle-orm";

/**
 * The server a connection was opened for, if it is still what it was then (the same generation):
 * what an upstream announced on an older generation's connection is not stored over a newer one.
 */
export async function serverAtGeneration(
  db: Database,
  target: Pick<UpstreamTarget, "id" | "generation">,
): Promise<typeof mcpServers.$inferSelect | undefined> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, target.id), eq(mcpServers.generation, target.generation)));
  return row;
}

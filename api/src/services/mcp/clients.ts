import { type Database, mcpClients, newId, projects } from "@loadout/db";
import { desc, eq, sql } from "drizzle-orm";
import type { Principal } from "../context";
import { personalWorkspaceId } from "../workspaces/access";

export interface ClientSighting {
  clientName: string;
  clientVersion: string;
  era: "modern" | "legacy";
  protocolVersion: string | null;
  project: string | null;
  mode: string;
  endpointId: string | null;
}

/**
 * Sightings written in the last minute, per process: the console needs "last seen", not a write per
 * request. The requests seen meanwhile are counted here and added at the next write, so the
 * Connect page's count is the number of requests, not of writes (at most a minute's worth per
 * process is lost when it stops).
 */
const recent = new Map<string, { at: number; unwritten: number }>();
const RESOLUTION_MS = 60_000;

/**
 * Records (or refreshes) a client connection. Call it deferred, after the response: it is never
 * on a request's critical path, and it writes at most once a minute per connection and process.
 */
export async function recordClient(
  db: Database,
  principal: Principal,
  sighting: ClientSighting,
  now: Date,
): Promise<void> {
  const tokenId = principal.kind === "token" ? principal.tokenId : null;
  const key = [
    sighting.clientName,
    sighting.clientVersion,
    sighting.era,
    sighting.project ?? "",
    sighting.mode,
    sighting.endpointId ?? "",
    tokenId ?? "",
  ].join("\u001f");
  const memo = `${principal.userId}\u001f${key}`;
  const last = recent.get(memo);
  if (last !== undefined && now.getTime() - last.at < RESOLUTION_MS) {
    last.unwritten += 1;
    return;
  }
  const seen = 1 + (last?.unwritten ?? 0);
  recent.set(memo, { at: now.getTime(), unwritten: 0 });
  if (recent.size > 10_000) recent.clear();
  const workspaceId = await personalWorkspaceId(db, principal.userId);
  if (!workspaceId) return;
  if (sighting.project) {
    // A project seen in a session joins the workspace's known projects, for the scope picker.
    await db
      .insert(projects)
      .values({
        id: newId("project", now.getTime()),
        workspaceId,
        path: sighting.project,
        source: "session",
        createdAt: now,
      })
      .onConflictDoNothing();
  }
  await db
    .insert(mcpClients)
    .values({
      id: newId("client", now.getTime()),
      workspaceId,
      userId: principal.userId,
      key,
      ...sighting,
      tokenId,
      requests: seen,
      firstSeenAt: now,
      lastSeenAt: now,
    })
    .onConflictDoUpdate({
      target: [mcpClients.userId, mcpClients.key],
      set: {
        lastSeenAt: now,
        requests: sql`${mcpClients.requests} + ${seen}`,
        protocolVersion: sighting.protocolVersion,
      },
    });
}

export async function listClients(db: Database, userId: string) {
  const rows = await db
    .select()
    .from(mcpClients)
    .where(eq(mcpClients.userId, userId))
    .orderBy(desc(mcpClients.lastSeenAt))
    .limit(100);
  return rows.map((r) => ({
    id: r.id,
    clientName: r.clientName,
    clientVersion: r.clientVersion,
    era: r.era,
    protocolVersion: r.protocolVersion,
    project: r.project,
    mode: r.mode,
    endpointId: r.endpointId,
    tokenId: r.tokenId,
    requests: r.requests,
    firstSeenAt: r.firstSeenAt.toISOString(),
    lastSeenAt: r.lastSeenAt.toISOString(),
  }));
}

import { type Database, mcpServers, memberships, skills } from "@loadout/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { isRowActive } from "../../domain/activation";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { HotCaches } from "../cache/hot";
import type { Principal } from "../context";
import { prepared } from "../prepared";
import type { ServerDeps } from "../servers/upstreams";
import { findSkill, type SkillRow } from "../skills/lookup";

/** What an MCP session sees: who, which workspaces, which project, which mode, which client. */
export interface McpSession {
  principal: Principal;
  workspaces: WorkspaceView[];
  project: string | null;
  mode: "agent" | "plan" | "goal";
  /** Where this instance keeps what sessions read, while Postgres's change feed is live. */
  caches?: HotCaches;
  /** The upstream proxy's dependencies: upstream servers' skills are read through them (services/mcp/upstream-skills.ts). */
  servers?: ServerDeps;
}

export interface CatalogItem {
  id: string;
  workspaceId: string;
  /** `name` for the personal workspace, `<team>/<name>` for a team's. */
  address: string;
  origin: { kind: "personal" } | { kind: "team"; team: string };
  kind: "skill" | "persona";
  name: string;
  description: string;
  version: number;
  /** The bytes of all its files, for an estimate of what reading it costs. */
  totalBytes: number;
}

function addressOf(workspace: Pick<WorkspaceView, "kind" | "slug">, name: string): string {
  return workspace.kind === "personal" ? name : `${workspace.slug}/${name}`;
}

/** Every item active for this session: enabled, and in scope for its project (the one matching rule). */
export async function activeItems(db: Database, session: McpSession): Promise<CatalogItem[]> {
  const hot = session.caches;
  if (session.workspaces.length === 0) return [];
  const byId = new Map(session.workspaces.map((w) => [w.id, w]));
  const ids = [...byId.keys()];
  const read = () =>
    db
      .select({
        id: skills.id,
        workspaceId: skills.workspaceId,
        kind: skills.kind,
        name: skills.name,
        description: skills.description,
        enabled: skills.enabled,
        scopeMode: skills.scopeMode,
        scopeProjects: skills.scopeProjects,
        version: skills.version,
        totalBytes: skills.totalBytes,
      })
      .from(skills)
      .where(and(inArray(skills.workspaceId, ids), eq(skills.enabled, true)));
  const rows = hot ? await hot.byWorkspaces(`enabled_items\u0000${ids.join(",")}`, ids, read) : await read();
  const items: CatalogItem[] = [];
  for (const row of rows) {
    const workspace = byId.get(row.workspaceId);
    if (!workspace) continue;
    if (!isRowActive(row, session.project)) continue;
    items.push({
      id: row.id,
      workspaceId: row.workspaceId,
      address: addressOf(workspace, row.name),
      origin: workspace.kind === "personal" ? { kind: "personal" } : { kind: "team", team: workspace.slug },
      kind: row.kind,
      name: row.name,
      description: row.description,
      version: row.version,
      totalBytes: row.totalBytes,
    });
  }
  return items.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

/** One item by name in one of the session's workspaces, or null; from memory while that holds. */
export function itemIn(
  db: Database,
  session: McpSession,
  workspaceId: string,
  name: string,
): SkillRow | null | Promise<SkillRow | null> {
  const read = () => findSkill(db, workspaceId, name).catch(() => null);
  const hot = session.caches;
  return hot ? hot.byWorkspaces(`item\u0000${workspaceId}\u0000${name}`, [workspaceId], read) : read();
}

export type Resolution =
  | { ok: true; workspace: WorkspaceView; name: string; row?: typeof skills.$inferSelect }
  | { ok: false; message: string; candidates: string[] };

/**
 * Resolves a name an agent gave: `team/name` is exact; a bare name is the personal item, else the
 * one team item of that name. Several matches, or none, are refused with the candidates.
 */
export async function resolveAddress(db: Database, session: McpSession, address: string): Promise<Resolution> {
  const hot = session.caches;
  const slash = address.indexOf("/");
  if (slash > 0) {
    const team = address.slice(0, slash);
    const name = address.slice(slash + 1);
    const workspace = session.workspaces.find((w) => w.kind === "team" && w.slug === team);
    if (workspace) {
      const row = hot ? await itemIn(db, session, workspace.id, name) : null;
      return row ? { ok: true, workspace, name, row } : { ok: true, workspace, name };
    }
    return {
      ok: false,
      message: `There is no team "${team}" in this session.`,
      candidates: session.workspaces.filter((w) => w.kind === "team").map((w) => w.slug),
    };
  }
  // Whole rows (the caller uses the one it picks without reading it again), through the
  // caller's memberships so that the statement takes only scalar parameters and is prepared once.
  const ids = session.workspaces.map((w) => w.id);
  const read = () =>
    prepared(db, "items_by_name_for_user", (d) =>
      d
        .select({ skill: skills })
        .from(skills)
        .innerJoin(memberships, eq(memberships.workspaceId, skills.workspaceId))
        .where(
          and(
            eq(memberships.userId, sql.placeholder("userId")),
            sql`(${sql.placeholder("narrowedTo")}::text is null or ${memberships.workspaceId} = ${sql.placeholder("narrowedTo")})`,
            eq(skills.name, sql.placeholder("name")),
          ),
        )
        .prepare("items_by_name_for_user"),
    )
      .execute({ userId: session.principal.userId, narrowedTo: session.principal.workspaceId, name: address })
      .then((found) => found.map((f) => f.skill));
  // The memberships the query joins are those the session's workspaces came from, so the
  // workspaces' generations stamp it.
  const rows = hot
    ? await hot.byWorkspaces(`items_by_name\u0000${ids.join(",")}\u0000${address}`, ids, read)
    : await read();
  const matches = rows.flatMap((row) => {
    const workspace = session.workspaces.find((w) => w.id === row.workspaceId);
    return workspace ? [{ workspace, row }] : [];
  });
  const personal = matches.find((m) => m.workspace.kind === "personal");
  if (personal) return { ok: true, workspace: personal.workspace, name: address, row: personal.row };
  const only = matches.length === 1 ? matches[0] : undefined;
  if (only) return { ok: true, workspace: only.workspace, name: address, row: only.row };
  if (matches.length > 1) {
    return {
      ok: false,
      message: `"${address}" is ambiguous: name one of these.`,
      candidates: matches.map((m) => addressOf(m.workspace, address)),
    };
  }
  const all = await activeItems(db, session);
  return {
    ok: false,
    message: `There is no skill or persona "${address}" in this session.`,
    candidates: all.map((i) => i.address).slice(0, 50),
  };
}

/** Whether any enabled skill, persona or server of these workspaces is scoped to projects. */
export async function hasProjectScopedItems(db: Database, workspaceIds: string[], hot?: HotCaches): Promise<boolean> {
  if (workspaceIds.length === 0) return false;
  const read = () => scopedItemsExist(db, workspaceIds);
  return hot ? hot.byWorkspaces(`scoped_items\u0000${workspaceIds.join(",")}`, workspaceIds, read) : read();
}

async function scopedItemsExist(db: Database, workspaceIds: string[]): Promise<boolean> {
  const rows = await db.execute(sql`
    select 1 from ${skills} where ${inArray(skills.workspaceId, workspaceIds)} and ${skills.enabled} and ${skills.scopeMode} = 'projects'
    union all
    select 1 from ${mcpServers} where ${inArray(mcpServers.workspaceId, workspaceIds)} and ${mcpServers.enabled} and ${mcpServers.scopeMode} = 'projects'
    limit 1`);
  return (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).length > 0;
}

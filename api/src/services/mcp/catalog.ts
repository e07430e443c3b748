import { type Database, mcpServers, memberships, skills } from "@loadout/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { isActiveInProject } from "../../domain/activation";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { Principal } from "../context";
import { prepared } from "../prepared";

/** What an MCP session sees: who, which workspaces, which project, which mode, which client. */
export interface McpSession {
  principal: Principal;
  workspaces: WorkspaceView[];
  project: string | null;
  mode: "agent" | "plan" | "goal";
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
}

function addressOf(workspace: Pick<WorkspaceView, "kind" | "slug">, name: string): string {
  return workspace.kind === "personal" ? name : `${workspace.slug}/${name}`;
}

/** Every item active for this session: enabled, and in scope for its project (the one matching rule). */
export async function activeItems(db: Database, session: McpSession): Promise<CatalogItem[]> {
  if (session.workspaces.length === 0) return [];
  const byId = new Map(session.workspaces.map((w) => [w.id, w]));
  const rows = await db
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
    })
    .from(skills)
    .where(and(inArray(skills.workspaceId, [...byId.keys()]), eq(skills.enabled, true)));
  const items: CatalogItem[] = [];
  for (const row of rows) {
    const workspace = byId.get(row.workspaceId);
    if (!workspace) continue;
    if (
      !isActiveInProject(
        { enabled: row.enabled, scope: { mode: row.scopeMode, projects: row.scopeProjects } },
        session.project,
      )
    )
      continue;
    items.push({
      id: row.id,
      workspaceId: row.workspaceId,
      address: addressOf(workspace, row.name),
      origin: workspace.kind === "personal" ? { kind: "personal" } : { kind: "team", team: workspace.slug },
      kind: row.kind,
      name: row.name,
      description: row.description,
      version: row.version,
    });
  }
  return items.sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}

export type Resolution =
  | { ok: true; workspace: WorkspaceView; name: string; row?: typeof skills.$inferSelect }
  | { ok: false; message: string; candidates: string[] };

/**
 * Resolves a name an agent gave: `team/name` is exact; a bare name is the personal item, else the
 * one team item of that name. Several matches, or none, are refused with the candidates.
 */
export async function resolveAddress(db: Database, session: McpSession, address: string): Promise<Resolution> {
  const slash = address.indexOf("/");
  if (slash > 0) {
    const team = address.slice(0, slash);
    const name = address.slice(slash + 1);
    const workspace = session.workspaces.find((w) => w.kind === "team" && w.slug === team);
    if (workspace) return { ok: true, workspace, name };
    return {
      ok: false,
      message: `There is no team "${team}" in this session.`,
      candidates: session.workspaces.filter((w) => w.kind === "team").map((w) => w.slug),
    };
  }
  // Whole rows (the caller uses the one it picks without reading it again), through the
  // caller's memberships so that the statement takes only scalar parameters and is prepared once.
  const rows = await prepared(db, "items_by_name_for_user", (d) =>
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
export async function hasProjectScopedItems(db: Database, workspaceIds: string[]): Promise<boolean> {
  if (workspaceIds.length === 0) return false;
  const rows = await db.execute(sql`
    select 1 from ${skills} where ${inArray(skills.workspaceId, workspaceIds)} and ${skills.enabled} and ${skills.scopeMode} = 'projects'
    union all
    select 1 from ${mcpServers} where ${inArray(mcpServers.workspaceId, workspaceIds)} and ${mcpServers.enabled} and ${mcpServers.scopeMode} = 'projects'
    limit 1`);
  return (Array.isArray(rows) ? rows : (rows as { rows: unknown[] }).rows).length > 0;
}

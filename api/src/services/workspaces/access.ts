import { type Database, memberships, workspaces } from "@loadout/db";
import { and, eq, sql } from "drizzle-orm";
import { notFound } from "../../errors";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { Principal } from "../context";
import { prepared } from "../prepared";

/** A workspace as a member sees it: with the member's role. */
export const workspaceColumns = {
  id: workspaces.id,
  slug: workspaces.slug,
  name: workspaces.name,
  kind: workspaces.kind,
  role: memberships.role,
  createdAt: workspaces.createdAt,
};

/**
 * The workspaces a principal reaches: every membership of its user, or only the one a token
 * is narrowed to (and only while the user still belongs to it).
 */
export async function reachableWorkspaces(db: Database, principal: Principal): Promise<WorkspaceView[]> {
  // Read on every MCP request: prepared once per database handle.
  const rows = await prepared(db, "reachable_workspaces", (d) =>
    d
      .select(workspaceColumns)
      .from(memberships)
      .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(
        and(
          eq(memberships.userId, sql.placeholder("userId")),
          sql`(${sql.placeholder("narrowedTo")}::text is null or ${memberships.workspaceId} = ${sql.placeholder("narrowedTo")})`,
        ),
      )
      .orderBy(workspaces.kind, workspaces.slug)
      .prepare("reachable_workspaces"),
  ).execute({ userId: principal.userId, narrowedTo: principal.workspaceId });
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString() }));
}

/**
 * Resolves `{ws}` (a slug, or `me` for the personal workspace) for a principal. A workspace
 * the principal does not reach is reported exactly like one that does not exist.
 */
export async function resolveWorkspace(db: Database, principal: Principal, ws: string): Promise<WorkspaceView> {
  const conditions = [eq(memberships.userId, principal.userId)];
  conditions.push(ws === "me" ? eq(workspaces.kind, "personal") : eq(workspaces.slug, ws));
  if (principal.workspaceId) conditions.push(eq(workspaces.id, principal.workspaceId));
  const [row] = await db
    .select(workspaceColumns)
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(and(...conditions))
    .limit(1);
  if (!row) throw notFound(`Workspace "${ws}"`);
  return { ...row, createdAt: row.createdAt.toISOString() };
}

/** The user's personal workspace, where user-level events (sign-in, tokens) are recorded. */
export async function personalWorkspaceId(db: Database, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ id: workspaces.id })
    .from(memberships)
    .innerJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
    .where(and(eq(memberships.userId, userId), eq(workspaces.kind, "personal")))
    .limit(1);
  return row?.id ?? null;
}

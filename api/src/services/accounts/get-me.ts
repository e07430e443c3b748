import { memberships, users, workspaces } from "@loadout/db";
import { and, eq, sql } from "drizzle-orm";
import { AppError } from "../../errors";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { ActionContext } from "../context";
import { prepared } from "../prepared";
import { workspaceColumns } from "../workspaces/access";
import type { AccountUser } from "./create-account";

/** The caller and the workspaces it reaches, in one round trip (this is the hottest REST read). */
export async function getMe({
  ctx,
}: {
  ctx: ActionContext;
}): Promise<{ user: AccountUser; workspaces: WorkspaceView[] }> {
  const rows = await prepared(ctx.db, "me", (d) =>
    d
      .select({
        id: users.id,
        email: users.email,
        name: users.name,
        createdAt: users.createdAt,
        workspace: workspaceColumns,
      })
      .from(users)
      .leftJoin(
        memberships,
        and(
          eq(memberships.userId, users.id),
          // A token narrowed to one workspace reaches only that one.
          sql`(${sql.placeholder("narrowedTo")}::text is null or ${memberships.workspaceId} = ${sql.placeholder("narrowedTo")})`,
        ),
      )
      .leftJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(eq(users.id, sql.placeholder("userId")))
      .orderBy(workspaces.kind, workspaces.slug)
      .prepare("me"),
  ).execute({ userId: ctx.principal.userId, narrowedTo: ctx.principal.workspaceId });
  const first = rows[0];
  if (!first) throw new AppError("unauthorized", "This account no longer exists.");
  return {
    user: { id: first.id, email: first.email, name: first.name, createdAt: first.createdAt },
    workspaces: rows.flatMap(({ workspace: w }) =>
      // Left-joined columns are all null for a user without (reachable) workspaces.
      w?.id && w.slug && w.name !== null && w.kind && w.role && w.createdAt
        ? [{ id: w.id, slug: w.slug, name: w.name, kind: w.kind, role: w.role, createdAt: w.createdAt.toISOString() }]
        : [],
    ),
  };
}

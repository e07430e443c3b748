import { apiTokens, auditEvents, idFloor, users } from "@loadout/db";
import { and, desc, eq, lt, ne, type SQL, sql } from "drizzle-orm";
import { OUTCOMES, type Outcome } from "../../domain/activity/outcomes";
import { decodeCursor, encodeCursor } from "../../domain/cursor";
import { AppError } from "../../errors";
import type { ActivityEvent, ActivityQuery } from "../../schemas/activity";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";

const badCursor = () =>
  new AppError("invalid_request", "The cursor is not valid: pass nextCursor from the previous page unchanged.", {
    details: [{ path: "cursor", message: "not a cursor this endpoint gave" }],
  });

/**
 * A workspace's activity, newest first: every audit event (who changed what) and every MCP call
 * (which client called which tool, its outcome and latency). Time bounds become id bounds (ids
 * sort by time), so each filter walks one index of `(workspace, filter, id)`.
 */
export async function listActivity({
  ctx,
  ws,
  query,
}: {
  ctx: ActionContext;
  ws: string;
  query: ActivityQuery;
}): Promise<{ events: ActivityEvent[]; nextCursor: string | null }> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const conditions: SQL[] = [eq(auditEvents.workspaceId, workspace.id)];
  if (query.cursor) {
    const decoded = decodeCursor(query.cursor);
    if (typeof decoded?.before !== "string" || decoded.ws !== workspace.id) throw badCursor();
    conditions.push(lt(auditEvents.id, decoded.before));
  }
  if (query.from) conditions.push(sql`${auditEvents.id} >= ${idFloor("event", Date.parse(query.from))}`);
  if (query.to) conditions.push(lt(auditEvents.id, idFloor("event", Date.parse(query.to))));
  if (query.kind === "call") conditions.push(eq(auditEvents.kind, "mcp"));
  else if (query.kind === "change") conditions.push(ne(auditEvents.kind, "mcp"));
  else if (query.kind) conditions.push(eq(auditEvents.kind, query.kind));
  if (query.item) conditions.push(eq(auditEvents.item, query.item));
  if (query.actor) {
    if (query.actor.includes("@")) {
      const [user] = await ctx.db
        .select({ id: users.id })
        .from(users)
        .where(eq(users.email, query.actor.trim().toLowerCase()));
      if (!user) return { events: [], nextCursor: null };
      conditions.push(eq(auditEvents.actorUserId, user.id));
    } else conditions.push(eq(auditEvents.actorUserId, query.actor));
  }

  const rows = await ctx.db
    .select({
      event: {
        id: auditEvents.id,
        action: auditEvents.action,
        targetType: auditEvents.targetType,
        targetId: auditEvents.targetId,
        item: auditEvents.item,
        data: auditEvents.data,
        createdAt: auditEvents.createdAt,
      },
      actor: { id: users.id, email: users.email, name: users.name },
      token: { id: apiTokens.id, name: apiTokens.name },
    })
    .from(auditEvents)
    .leftJoin(users, eq(users.id, auditEvents.actorUserId))
    .leftJoin(apiTokens, eq(apiTokens.id, auditEvents.actorTokenId))
    .where(and(...conditions))
    .orderBy(desc(auditEvents.id))
    .limit(query.limit + 1);

  const page = rows.slice(0, query.limit);
  const last = page[page.length - 1];
  return {
    events: page.map(({ event, actor, token }) => {
      const call = event.action === "mcp.call";
      const data = event.data ?? {};
      const outcome = String(data.outcome ?? "error");
      return {
        id: event.id,
        at: event.createdAt.toISOString(),
        kind: call ? "call" : "change",
        action: event.action,
        actor: actor?.id ? { id: actor.id, email: actor.email, name: actor.name } : null,
        token: token?.id ? { id: token.id, name: token.name } : null,
        target: { type: event.targetType, id: event.targetId },
        item: event.item,
        data,
        call: call
          ? {
              method: event.targetType,
              tool: event.targetId,
              client: typeof data.client === "string" ? data.client : null,
              outcome: (OUTCOMES as readonly string[]).includes(outcome) ? (outcome as Outcome) : "error",
              ms: typeof data.ms === "number" ? data.ms : 0,
              mode: typeof data.mode === "string" ? data.mode : "agent",
              project: typeof data.project === "string" ? data.project : null,
              server: typeof data.server === "string" ? data.server : null,
              endpoint: typeof data.endpoint === "string" ? data.endpoint : null,
            }
          : null,
      };
    }),
    nextCursor: rows.length > query.limit && last ? encodeCursor({ ws: workspace.id, before: last.event.id }) : null,
  };
}

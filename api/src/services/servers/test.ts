import { AppError } from "../../errors";
import type { ServerToolsView, ServerView } from "../../schemas/servers";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { findServer, toolCounts, viewOf } from "./records";
import { toolRows, toolsView } from "./tools";
import { refreshTools, type ServerDeps } from "./upstreams";

export interface TestResult {
  server: ServerView;
  tools: ServerToolsView;
  error: string | null;
}

/**
 * Test: connects afresh through the SSRF guard, lists the tools and stores them (so sessions need
 * not ask the upstream), and records the outcome as the server's status (the connection light).
 * A failed server stays failed until it is edited or tested again.
 */
export async function testServer({
  ctx,
  ws,
  slug,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  deps: ServerDeps;
}): Promise<TestResult> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const row = await findServer(ctx.db, workspace.id, slug);
  if (!deps.pool)
    throw new AppError(
      "unavailable",
      "Testing servers needs the upstream proxy, which this host does not run (on Workers: bind UPSTREAM to the proxy Worker).",
    );
  const actor = {
    userId: ctx.principal.userId,
    workspaceParam: workspace.kind === "personal" ? "me" : workspace.slug,
    now: ctx.now,
    requestId: ctx.requestId,
  };
  const { stored, error, needsSignIn } = await refreshTools(ctx.db, row, deps, ctx.now, { fresh: true, actor });
  await recordEvent(ctx.db, ctx, {
    workspaceId: workspace.id,
    action: "server.tested",
    targetType: "server",
    targetId: row.id,
    data: { slug, ok: !error, tools: stored?.rows.length ?? 0, error, ...(needsSignIn ? { needsSignIn } : {}) },
  });
  const updated = await findServer(ctx.db, workspace.id, slug);
  return {
    server: await viewOf(updated, deps.box, (await toolCounts(ctx.db, [updated.id])).get(updated.id)),
    tools: toolsView(updated, stored?.rows ?? (await toolRows(ctx, updated)), stored?.refused ?? []),
    error,
  };
}

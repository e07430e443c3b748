import { mcpServers } from "@loadout/db";
import { connectUpstream, guardedFetch, type UpstreamTool } from "@loadout/workers";
import { and, eq } from "drizzle-orm";
import { upstreamAddressProblem, upstreamUrlProblem } from "../../domain/servers/address-policy";
import { AppError } from "../../errors";
import type { ServerView } from "../../schemas/servers";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { findServer, headerAd, type ServerDeps, viewOf } from "./records";

export interface TestResult {
  server: ServerView;
  tools: Pick<UpstreamTool, "name" | "title" | "description" | "annotations">[];
  error: string | null;
}

/**
 * Test: connects to the server through the SSRF guard, lists its tools, and records the outcome
 * as the server's status (the connection light). A failed server stays failed until it is edited
 * or tested again.
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
  const resolveHost = deps.resolveHost;
  if (!resolveHost)
    throw new AppError(
      "unavailable",
      "Testing servers needs the upstream proxy, which this deployment does not run yet.",
    );
  const headers: Record<string, string> = {};
  for (const [name, sealed] of Object.entries(row.headers))
    headers[name] = await deps.box.open(sealed, headerAd(row.id, name));
  const options = { allowLoopback: deps.allowLoopback };
  const fetch = guardedFetch({
    urlProblem: (url) => upstreamUrlProblem(url, options),
    addressProblem: (ip) => upstreamAddressProblem(ip, options),
    resolve: resolveHost,
  });
  let tools: UpstreamTool[] = [];
  let error: string | null = null;
  try {
    const connection = await connectUpstream({
      url: row.url,
      transport: row.transport,
      headers,
      fetch,
      connectTimeoutMs: Math.min(row.callTimeoutMs, 15_000),
    });
    try {
      tools = await connection.listTools();
    } finally {
      await connection.close().catch(() => {});
    }
  } catch (caught) {
    // The message names what failed; header values never reach it (the SDK does not echo them).
    error = (caught instanceof Error ? caught.message : String(caught)).slice(0, 500);
    for (const value of Object.values(headers)) if (value.length >= 8) error = error.split(value).join("[secret]");
  }
  const [updated] = await ctx.db.transaction(async (tx) => {
    const result = await tx
      .update(mcpServers)
      .set({ status: error ? "failed" : "ok", lastError: error, checkedAt: ctx.now })
      .where(and(eq(mcpServers.id, row.id), eq(mcpServers.workspaceId, workspace.id)))
      .returning();
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.tested",
      targetType: "server",
      targetId: row.id,
      data: { slug, ok: !error, tools: tools.length, error },
    });
    return result;
  });
  return {
    server: await viewOf(updated ?? row, deps.box),
    tools: tools.map(({ name, title, description, annotations }) => ({
      name,
      ...(title ? { title } : {}),
      ...(description ? { description } : {}),
      ...(annotations ? { annotations } : {}),
    })),
    error,
  };
}

/// <reference path="../../workers/src/cloudflare-workers.d.ts" />
import { WorkerEntrypoint } from "cloudflare:workers";
import { connectPostgres } from "@loadout/db";
import { ProxyClient, type UpstreamTool } from "@loadout/workers";
import type { ExecutionContext } from "hono";
import { createApp } from "./app";
import { createPasswordHasher } from "./auth/password";
import { parseWorkerEnv, type WorkerEnv } from "./entry/worker-env";
import { jsonLogger } from "./logger";
import { storeAnnouncedTools } from "./services/servers/upstreams";

type App = ReturnType<typeof createApp>;

const databaseUrl = (env: WorkerEnv) => env.HYPERDRIVE?.connectionString ?? env.DATABASE_URL ?? "";

// One app per isolate (routes and keys are built once); a database connection per request,
// because I/O objects cannot cross requests on Workers and Hyperdrive pools the real connections.
let cached: { source: unknown; app: App } | undefined;

function appFor(source: unknown): App {
  if (cached && cached.source === source) return cached.app;
  const env = parseWorkerEnv(source);
  const url = databaseUrl(env);
  const app = createApp({
    database: {
      acquire() {
        const opened = connectPostgres(url, { max: 1 });
        return { db: opened.db, release: () => opened.close() };
      },
    },
    hasher: createPasswordHasher(),
    secretKey: env.LOADOUT_SECRET_KEY,
    previousSecretKeys: env.LOADOUT_PREVIOUS_SECRET_KEYS,
    logger: jsonLogger,
    secureCookies: env.LOADOUT_INSECURE_COOKIES !== "1",
    mcpFastLane: env.LOADOUT_MCP_FAST_LANE === "1",
    ...(env.LOADOUT_PUBLIC_URL ? { publicUrl: env.LOADOUT_PUBLIC_URL } : {}),
    clientAddress: (c) => c.req.header("cf-connecting-ip") ?? null,
    waitUntil: (c, work) => c.executionCtx.waitUntil(work),
    // Remote servers are reached through the proxy Worker; without its binding none is listed.
    ...(env.UPSTREAM ? { upstreamPool: new ProxyClient(env.UPSTREAM) } : {}),
    allowLoopbackUpstreams: env.LOADOUT_ALLOW_LOOPBACK_UPSTREAMS === "1",
  });
  cached = { source, app };
  return app;
}

export default {
  fetch(request: Request, env: unknown, ctx: ExecutionContext): Response | Promise<Response> {
    let app: App;
    try {
      app = appFor(env);
    } catch (error) {
      console.error((error as Error).message);
      return Response.json(
        {
          error: {
            code: "unavailable",
            message: "This Loadout deployment is misconfigured; its operator has been told.",
            requestId: "none",
          },
        },
        { status: 503 },
      );
    }
    return app.fetch(request, env, ctx);
  },
};

/**
 * Called by the proxy Worker when an upstream announces that its tools changed
 * (`tools/list_changed`): the list is stored as on Node (server-deps.ts), for the server and
 * generation it was heard on, where every instance reads it.
 */
export class ToolsChanged extends WorkerEntrypoint<unknown> {
  async toolsChanged(target: { id: string; generation: number }, tools: UpstreamTool[]): Promise<void> {
    if (typeof target?.id !== "string" || !Number.isInteger(target.generation) || !Array.isArray(tools))
      throw new Error("toolsChanged takes a server id, its generation and the announced tools");
    const opened = connectPostgres(databaseUrl(parseWorkerEnv(this.env)), { max: 1 });
    try {
      await storeAnnouncedTools(opened.db, target, tools, new Date());
    } finally {
      await opened.close();
    }
  }
}

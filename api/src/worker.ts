import { connectPostgres } from "@loadout/db";
import type { ExecutionContext } from "hono";
import { createApp } from "./app";
import { createPasswordHasher } from "./auth/password";
import { parseWorkerEnv } from "./entry/worker-env";
import { jsonLogger } from "./logger";

type App = ReturnType<typeof createApp>;

// One app per isolate (routes and keys are built once); a database connection per request,
// because I/O objects cannot cross requests on Workers and Hyperdrive pools the real connections.
let cached: { source: unknown; app: App } | undefined;

function appFor(source: unknown): App {
  if (cached && cached.source === source) return cached.app;
  const env = parseWorkerEnv(source);
  const url = env.HYPERDRIVE?.connectionString ?? env.DATABASE_URL ?? "";
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

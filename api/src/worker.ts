/// <reference path="../../workers/src/cloudflare-workers.d.ts" />
import { WorkerEntrypoint } from "cloudflare:workers";
import { connectPostgres, requestScopedPostgres } from "@loadout/db";
import { dohResolver, ProxyClient, type UpstreamTarget, type UpstreamTool } from "@loadout/workers";
import type { ExecutionContext } from "hono";
import { createApp, type DatabaseProvider } from "./app";
import { createPasswordHasher } from "./auth/password";
import { ChangeFeed, changeFeedClient } from "./entry/change-feed";
import { assetPasswordDictionary } from "./entry/password-dictionary-asset";
import { resealAndLog } from "./entry/reseal-logged";
import { parseWorkerEnv, type WorkerEnv } from "./entry/worker-env";
import { schemaBehindAnswer } from "./entry/worker-schema";
import { jsonLogger } from "./logger";
import { type QueuedMessage, queueRecorder, RETRY_DELAY_SECONDS, writeQueuedCalls } from "./services/mcp/call-queue";
import { PendingAnswers } from "./services/mcp/pending-answers";
import { storeAnnouncedItems } from "./services/servers/items";
import { storeAnnouncedTools } from "./services/servers/upstreams";

export { ChangeFeed };

type App = ReturnType<typeof createApp>;
type Opened = { app: App; env: WorkerEnv; open: DatabaseProvider["acquire"] };

const databaseUrl = (env: WorkerEnv) => env.HYPERDRIVE?.connectionString ?? env.DATABASE_URL ?? "";

// One app per isolate (routes and keys are built once); a database connection per request,
// because I/O objects cannot cross requests on Workers and Hyperdrive pools the real connections
// (the handles around them are kept: requestScopedPostgres).
let cached: ({ source: unknown } & Opened) | undefined;

function appFor(source: unknown): Opened {
  if (cached && cached.source === source) return cached;
  const env = parseWorkerEnv(source);
  const url = databaseUrl(env);
  const open = requestScopedPostgres(url).acquire;
  const app = createApp({
    database: { acquire: open },
    hasher: createPasswordHasher(),
    passwordDictionary: env.ASSETS
      ? assetPasswordDictionary(env.ASSETS)
      : () =>
          Promise.reject(new Error("no ASSETS binding: add `assets` to the Worker's config (infra/wrangler.jsonc)")),
    secretKey: env.LOADOUT_SECRET_KEY,
    previousSecretKeys: env.LOADOUT_PREVIOUS_SECRET_KEYS,
    logger: jsonLogger,
    secureCookies: env.LOADOUT_INSECURE_COOKIES !== "1",
    mcpFastLane: env.LOADOUT_MCP_FAST_LANE === "1",
    // No resolver in the runtime: the SSRF guard resolves over DNS over HTTPS (the isolate keeps the answers for their TTL).
    resolveHost: dohResolver(env.LOADOUT_DOH_URL ? { url: env.LOADOUT_DOH_URL } : {}),
    allowLoopbackUpstreams: env.LOADOUT_ALLOW_LOOPBACK_UPSTREAMS === "1",
    ...(env.LOADOUT_PUBLIC_URL ? { publicUrl: env.LOADOUT_PUBLIC_URL } : {}),
    clientAddress: (c) => c.req.header("cf-connecting-ip") ?? null,
    waitUntil: (c, work) => c.executionCtx.waitUntil(work),
    // Remote servers are reached through the proxy Worker; without its binding none is listed.
    ...(env.UPSTREAM ? { upstreamPool: new ProxyClient(env.UPSTREAM) } : {}),
    // A 2025 client's answers and cancellations reach the isolate whose call they belong to
    // through the proxy Worker's mailbox objects (workers/src/mailbox.ts).
    ...(env.UPSTREAM ? { pendingAnswers: new PendingAnswers(undefined, env.UPSTREAM) } : {}),
    // MCP calls go to the call-log Queue, written in batches by `queue()` below; without the
    // binding each is written after its answer (the default recorder).
    ...(env.CALL_LOG ? { callRecorder: queueRecorder(env.CALL_LOG, jsonLogger) } : {}),
    // Postgres's change feed, held by a Durable Object (entry/change-feed.ts): a warm MCP call
    // takes its counters from it instead of reading them. Without the binding each reads them.
    ...(env.CHANGES ? { changeFeed: changeFeedClient(env.CHANGES) } : {}),
  });
  cached = { source, app, env, open };
  return cached;
}

function misconfigured(error: unknown): Response {
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

export default {
  async fetch(request: Request, env: unknown, ctx: ExecutionContext): Promise<Response> {
    let opened: Opened;
    try {
      opened = appFor(env);
    } catch (error) {
      return misconfigured(error);
    }
    const behind = await schemaBehindAnswer(opened.open, (message) => jsonLogger.log("error", message));
    if (behind) return behind;
    return opened.app.fetch(request, env, ctx);
  },

  /** The cron trigger (infra/wrangler.jsonc `triggers.crons`): re-seals rotated secrets. */
  async scheduled(_controller: unknown, env: unknown, ctx: ExecutionContext): Promise<void> {
    let opened: Opened;
    try {
      opened = appFor(env);
    } catch (error) {
      console.error((error as Error).message);
      return;
    }
    ctx.waitUntil(resealAndLog(opened.app, opened.env.LOADOUT_PREVIOUS_SECRET_KEYS, jsonLogger));
  },

  /**
   * The call-log Queue's consumer (infra/wrangler.jsonc `queues.consumers`): a batch of MCP calls
   * written in one statement, on a connection of its own. Every message is acked or retried here;
   * nothing is thrown, which would retry the whole batch.
   */
  async queue(batch: CallLogBatch, env: unknown): Promise<void> {
    let url: string;
    try {
      url = databaseUrl(appFor(env).env);
    } catch (error) {
      console.error((error as Error).message);
      batch.retryAll({ delaySeconds: RETRY_DELAY_SECONDS });
      return;
    }
    const opened = connectPostgres(url, { max: 1 });
    try {
      await writeQueuedCalls(opened.db, batch.messages, jsonLogger);
    } finally {
      await opened.close();
    }
  },
};

/** The parts of a delivered Queue batch the consumer uses. */
interface CallLogBatch {
  readonly messages: readonly QueuedMessage[];
  retryAll(options?: { delaySeconds?: number }): void;
}

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

  /**
   * Called by the proxy Worker when an upstream announces that its prompts or resources changed
   * (`prompts/list_changed`, `resources/list_changed`): they are listed again through the same
   * session object (the target it was opened with) and stored as on Node (server-deps.ts).
   */
  async itemsChanged(target: UpstreamTarget): Promise<void> {
    if (typeof target?.id !== "string" || !Number.isInteger(target.generation) || typeof target.url !== "string")
      throw new Error("itemsChanged takes the target the upstream session was opened for");
    const env = parseWorkerEnv(this.env);
    if (!env.UPSTREAM) return;
    const opened = connectPostgres(databaseUrl(env), { max: 1 });
    try {
      await storeAnnouncedItems(opened.db, new ProxyClient(env.UPSTREAM), target, new Date());
    } finally {
      await opened.close();
    }
  }
}

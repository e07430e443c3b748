import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { randomBase62 } from "../../auth/secrets";
import type { AppDeps, AppEnv } from "../env";
import { describeError } from "../errors";

/**
 * Per-request context: a request id (echoed as X-Request-Id), the clock, a database from the
 * provider (released after the response), deferred work, and one structured log line.
 */
// Request ids need to be unique, not secret: a random prefix per process (or isolate) and a counter.
// The prefix is drawn on first use: Workers refuse random values in global scope.
let prefix: string | undefined;
let counter = 0;
function nextRequestId(): string {
  prefix ??= randomBase62(10);
  counter = (counter + 1) % 2_176_782_336; // 36^6
  return `req_${prefix}${counter.toString(36).padStart(6, "0")}`;
}

export function requestContext(deps: AppDeps, csrfKey: Uint8Array) {
  const clock = deps.clock ?? (() => new Date());
  return createMiddleware<AppEnv>(async (c, next) => {
    const started = performance.now();
    const requestId = nextRequestId();
    const { db, release } = deps.database.acquire();
    const deferred: Array<() => Promise<unknown>> = [];
    c.set("requestId", requestId);
    c.set("now", clock());
    c.set("db", db);
    c.set("deps", deps);
    c.set("csrfKey", csrfKey);
    c.set("principal", undefined);
    c.set("rawBody", undefined);
    c.set("lane", undefined);
    c.set("wrote", false);
    c.set("defer", (work) => deferred.push(work));
    try {
      await next();
    } finally {
      // Read-your-writes on this instance: a write answered here is seen by the very next request,
      // before Postgres's notification of it arrives. MCP requests are reads but for skill_edit,
      // which the endpoint reports itself.
      if (c.req.method !== "GET" && c.req.method !== "HEAD" && (!c.req.path.startsWith("/mcp") || c.get("wrote")))
        deps.freshness?.wroteHere();
      const ms = Math.round((performance.now() - started) * 100) / 100;
      // Server time, for clients and benchmarks that separate it from the network.
      setFinalHeader(c, "X-Request-Id", requestId);
      const lane = c.get("lane");
      setFinalHeader(c, "Server-Timing", `app;dur=${ms}${lane ? `, lane;desc="${lane}"` : ""}`);
      const principal = c.get("principal");
      deps.logger.log(c.res.status >= 500 ? "error" : "info", "request", {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms,
        ...(principal
          ? {
              userId: principal.userId,
              ...(principal.kind === "token" ? { tokenId: principal.tokenId } : {}),
              ...(principal.kind === "oauth" ? { grantId: principal.grantId } : {}),
            }
          : {}),
      });
      const after = (async () => {
        for (const work of deferred) {
          try {
            await work();
          } catch (error) {
            deps.logger.log("error", "deferred work failed", { requestId, error: describeError(error) });
          }
        }
        await release();
      })();
      if (deps.waitUntil) deps.waitUntil(c, after);
      else void after;
    }
  });
}

/**
 * Sets a header on the response already made. Straight on its headers where they are mutable:
 * Hono's `c.header` would rebuild the response around its body stream first, which costs more
 * than a small MCP call. A response with immutable headers (one passed on from fetch) is rebuilt.
 */
function setFinalHeader(c: Context<AppEnv>, name: string, value: string) {
  try {
    c.res.headers.set(name, value);
  } catch {
    c.header(name, value);
  }
}

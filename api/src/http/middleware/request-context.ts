import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { randomBase62 } from "../../auth/secrets";
import { describeError } from "../../errors";
import type { AppDeps, AppEnv, AppVariables } from "../env";

// Request ids need to be unique, not secret: a random prefix per process (or isolate) and a counter.
// The prefix is drawn on first use: Workers refuse random values in global scope.
let prefix: string | undefined;
let counter = 0;
function nextRequestId(): string {
  prefix ??= randomBase62(10);
  counter = (counter + 1) % 2_176_782_336; // 36^6
  return `req_${prefix}${counter.toString(36).padStart(6, "0")}`;
}

/**
 * What the request scope needs of a request and its answer: Hono's context gives it for every
 * route, and the Node host's MCP lane gives it without Hono (see entry/node-mcp-adapter.ts).
 */
export interface ScopedExchange {
  req: { method: string; path: string };
  get<K extends keyof AppVariables>(key: K): AppVariables[K];
  set<K extends keyof AppVariables>(key: K, value: AppVariables[K]): void;
  /** The answer's status, once the handler has run. */
  status(): number;
  /** Sets a header on the answer once the handler has run. */
  finalHeader(name: string, value: string): void;
  /** Keeps the runtime alive for work after the answer (Workers); absent where it lives on anyway. */
  waitUntil?(work: Promise<unknown>): void;
  /**
   * Holds the log line and the deferred work until the answer is sent, for a host that sends it
   * itself (the Node lane); without it they run as the handler returns.
   */
  afterAnswer?(work: () => void): void;
}

/** Runs `handle` in a request's scope (see `requestContext`). */
export function requestScope(deps: AppDeps, csrfKey: Uint8Array) {
  const clock = deps.clock ?? (() => new Date());
  return async (x: ScopedExchange, handle: () => Promise<void>) => {
    const started = performance.now();
    const requestId = nextRequestId();
    const { db, release } = deps.database.acquire();
    const deferred: Array<() => Promise<unknown>> = [];
    x.set("requestId", requestId);
    x.set("now", clock());
    x.set("db", db);
    x.set("deps", deps);
    x.set("csrfKey", csrfKey);
    x.set("principal", undefined);
    x.set("rawBody", undefined);
    x.set("lane", undefined);
    x.set("wrote", false);
    x.set("defer", (work) => deferred.push(work));
    try {
      await handle();
    } finally {
      // Read-your-writes on this instance: a write answered here is seen by the very next request,
      // before Postgres's notification of it arrives. MCP requests are reads but for skill_edit,
      // which the endpoint reports itself.
      // Where the change feed is held elsewhere (Workers), the answer waits until it has heard the
      // write, so that the next request on any isolate is served after it (see pollStamps).
      const { method, path } = x.req;
      if (method !== "GET" && method !== "HEAD" && (!path.startsWith("/mcp") || x.get("wrote"))) {
        deps.freshness?.wroteHere();
        if (deps.changeFeed) await deps.changeFeed.caughtUp().catch(() => false);
      }
      const ms = Math.round((performance.now() - started) * 100) / 100;
      // Server time, for clients and benchmarks that separate it from the network.
      x.finalHeader("X-Request-Id", requestId);
      const lane = x.get("lane");
      x.finalHeader("Server-Timing", `app;dur=${ms}${lane ? `, lane;desc="${lane}"` : ""}`);
      const finish = () => {
        const principal = x.get("principal");
        const status = x.status();
        // Built field by field: this runs on every request, and nested spreads would copy it.
        const fields: Record<string, unknown> = { requestId, method, path, status, ms };
        if (principal) {
          fields.userId = principal.userId;
          if (principal.kind === "token") fields.tokenId = principal.tokenId;
          if (principal.kind === "oauth") fields.grantId = principal.grantId;
        }
        deps.logger.log(status >= 500 ? "error" : "info", "request", fields);
        const after = runDeferred(deps, requestId, deferred, release);
        if (x.waitUntil) x.waitUntil(after);
        else void after;
      };
      if (x.afterAnswer) x.afterAnswer(finish);
      else finish();
    }
  };
}

/** A request's deferred work in order (a failure is logged and the rest goes on), then its database's release. */
async function runDeferred(
  deps: AppDeps,
  requestId: string,
  deferred: Array<() => Promise<unknown>>,
  release: () => Promise<void>,
): Promise<void> {
  for (const work of deferred) {
    try {
      await work();
    } catch (error) {
      deps.logger.log("error", "deferred work failed", { requestId, error: describeError(error) });
    }
  }
  await release();
}

/**
 * Per-request context: a request id (echoed as X-Request-Id), the clock, a database from the
 * provider (released after the response), deferred work, and one structured log line.
 */
export function requestContext(deps: AppDeps, csrfKey: Uint8Array) {
  const scope = requestScope(deps, csrfKey);
  return createMiddleware<AppEnv>((c, next) => scope(new HonoExchange(c, deps), next));
}

/** Hono's context as the request scope reads it. */
class HonoExchange implements ScopedExchange {
  constructor(
    private readonly c: Context<AppEnv>,
    private readonly deps: AppDeps,
  ) {}

  get req() {
    return this.c.req;
  }

  get<K extends keyof AppVariables>(key: K): AppVariables[K] {
    return this.c.get(key);
  }

  set<K extends keyof AppVariables>(key: K, value: AppVariables[K]): void {
    this.c.set(key, value);
  }

  status(): number {
    return this.c.res.status;
  }

  finalHeader(name: string, value: string): void {
    setFinalHeader(this.c, name, value);
  }

  waitUntil(work: Promise<unknown>): void {
    if (this.deps.waitUntil) this.deps.waitUntil(this.c, work);
    else void work;
  }

  /**
   * An event-stream answer (a 2025 client's SSE answer, a listen stream) is still being written by
   * its handler after the response is returned: the request's database must outlive it (on Workers
   * it is a connection of this request, closed by the release). Its body is passed through a
   * stream that runs the work once it ended, failed or was cancelled; any other answer is done.
   */
  afterAnswer(work: () => void): void {
    const res = this.c.res;
    const body = res.body;
    const streamed = res.headers.get("content-type")?.toLowerCase().startsWith("text/event-stream");
    if (body && streamed) this.c.res = new Response(whenStreamEnds(body, work), res);
    else work();
  }
}

/** `body`, read through, calling `ended` once when it is done, failed or cancelled by the reader. */
function whenStreamEnds(body: ReadableStream<Uint8Array>, ended: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let called = false;
  const end = () => {
    if (called) return;
    called = true;
    ended();
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          end();
        } else controller.enqueue(value);
      } catch (error) {
        controller.error(error);
        end();
      }
    },
    cancel(reason) {
      end();
      return reader.cancel(reason);
    },
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

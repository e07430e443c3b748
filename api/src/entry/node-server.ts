import { randomBytes } from "node:crypto";
import { lookup } from "node:dns/promises";
import { setMaxListeners } from "node:events";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { getRequestListener } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { OpenedDatabase } from "@loadout/db";
import { openDatabase } from "@loadout/db/open";
import { UpstreamPool } from "@loadout/workers";
import { createApp } from "../app";
import { nodeScrypt } from "../auth/node-scrypt";
import { nodeSha256Hex } from "../auth/node-sha256";
import { createPasswordHasher } from "../auth/password";
import { useNativeSha256 } from "../auth/secrets";
import { jsonLineLogger, type Logger, type LogLevel, silentLogger } from "../logger";
import { issueSetupSecret } from "../services/accounts/setup";
import { startDatabaseFreshness } from "../services/cache/freshness";
import { startAnswerRelay } from "../services/mcp/answer-relay";
import { batchingRecorder } from "../services/mcp/call-log";
import {
  upstreamFetch as guardedUpstreamFetch,
  upstreamPost as guardedUpstreamPost,
} from "../services/servers/upstreams";
import { dispatchedPost } from "./dispatched-post";
import { nodeConsole } from "./node-console";
import type { NodeEnv } from "./node-env";
import { nodeMcpLane } from "./node-mcp-adapter";
import { resealAndLog } from "./reseal-logged";
import { dispatchedFetch, rememberedResolver, upstreamDispatcher } from "./upstream-dispatcher";

/**
 * Shutdown's budget, within the 10 s that node.ts allows: requests in flight get DRAIN_MS to
 * finish; then the upstream calls still waiting are cut short (answered as error results) and
 * their answers get ANSWER_MS; each later step (upstream connections, the call log, the change
 * feed, the database) gets STEP_MS, so a database that is away cannot hold the exit.
 */
const DRAIN_MS = 3_000;
const ANSWER_MS = 1_000;
const STEP_MS = 1_000;

/** Whether `work` settled within `ms` (its failure counts as settled: shutdown goes on). */
async function settledWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long an upstream host's addresses, and a URL's pass of the SSRF guard, are remembered. */
const RESOLVED_FOR_MS = 30_000;

/**
 * The console's static export, found through the web workspace's name (not a path relative to this
 * file, which would not hold once the entry is bundled). Not a declared dependency: the console
 * depends on the API, and is optional here (served only when built).
 */
export const WEB_OUT = path.join(
  path.dirname(createRequire(import.meta.url).resolve("@loadout/web/package.json")),
  "out",
);

/** Local mode keeps a generated key in the data folder, created once with owner-only permissions. */
export function localSecretKey(dataDir: string): string {
  const file = path.join(dataDir, "secret-key");
  if (existsSync(file)) return readFileSync(file, "utf8").trim();
  mkdirSync(dataDir, { recursive: true });
  const key = randomBytes(32).toString("base64url");
  writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  return key;
}

/** What to write out when the process exits. */
const flushOnExit = new Set<() => void>();

/**
 * Log lines gathered and written together: a write per request line is a system call per request,
 * which under load costs more than the request. Lines wait at most 25 ms (or 16 KiB); errors,
 * and whatever waits when the process exits, are written at once.
 */
export function bufferedLines(
  out: { write(text: string): unknown } = process.stdout,
  err: { write(text: string): unknown } = process.stderr,
): (line: string, level: LogLevel) => void {
  let pending = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (pending) out.write(pending);
    pending = "";
  };
  flushOnExit.add(flush);
  if (flushOnExit.size === 1)
    process.once("exit", () => {
      for (const f of flushOnExit) f();
    });
  return (line, level) => {
    if (level === "error") {
      flush();
      err.write(`${line}\n`);
      return;
    }
    pending += `${line}\n`;
    if (pending.length >= 16 * 1024) flush();
    else if (!timer) {
      timer = setTimeout(flush, 25);
      timer.unref();
    }
  };
}

export interface RunningServer {
  url: string;
  setupUrl: string | null;
  database: OpenedDatabase;
  /** Resolves once this instance has heard of every change committed before the call. */
  caughtUp(): Promise<void>;
  close(): Promise<void>;
}

export async function startNodeServer(
  env: NodeEnv,
  options: {
    database?: OpenedDatabase;
    logger?: Logger;
    serveConsole?: boolean;
    /** Tests only: the fetch under the SSRF guard for OAuth client metadata documents. */
    clientMetadataFetch?: typeof fetch;
    /** Tests only: the requests' clock (default: the system's). */
    clock?: () => Date;
  } = {},
): Promise<RunningServer> {
  useNativeSha256(nodeSha256Hex);
  const dataDir = path.resolve(env.LOADOUT_DATA_DIR);
  const secretKey = env.LOADOUT_SECRET_KEY ?? localSecretKey(dataDir);
  const database =
    options.database ??
    (await openDatabase({
      databaseUrl: env.DATABASE_URL,
      dataDir: path.join(dataDir, "pglite"),
      max: env.LOADOUT_DB_POOL,
    }));
  // Straight to the stream: console.log's formatting costs more than the request it logs.
  const logger = options.logger ?? (env.LOADOUT_LOG === "silent" ? silentLogger : jsonLineLogger(bufferedLines()));
  const trustProxy = env.LOADOUT_TRUST_PROXY === "1";
  const serveConsole = (options.serveConsole ?? true) && existsSync(WEB_OUT);

  const callRecorder = batchingRecorder(database.db, logger);
  const feed = await startDatabaseFreshness(database, logger);
  const answers = await startAnswerRelay(database, logger);
  // Bound to loopback, the MCP endpoint answers only to loopback names (and the public URL's
  // host): a web page cannot reach it through a rebound DNS name.
  const loopback = ["127.0.0.1", "localhost", "::1", "[::1]"];
  const publicHost = env.LOADOUT_PUBLIC_URL ? new URL(env.LOADOUT_PUBLIC_URL).hostname : null;
  const allowedHosts = loopback.includes(env.LOADOUT_HOST)
    ? [...loopback, ...(publicHost ? [publicHost] : [])]
    : undefined;
  const allowLoopbackUpstreams = env.LOADOUT_ALLOW_LOOPBACK_UPSTREAMS === "1";
  const resolveHost = async (host: string) => (await lookup(host, { all: true })).map((a) => a.address);
  // Checked twice: by the guarded fetch before each request, and by the dispatcher on every
  // connection it opens (what a rebinding DNS answer would slip past the first check).
  const dispatcher = upstreamDispatcher({ allowLoopback: allowLoopbackUpstreams });
  const upstreamResolve = rememberedResolver(resolveHost, RESOLVED_FOR_MS);
  const upstreamFetch = guardedUpstreamFetch(upstreamResolve, allowLoopbackUpstreams, dispatchedFetch(dispatcher));
  // A warm call's URL is checked once per resolver lifetime, not per call: the dispatcher checks
  // every connection's addresses anyway.
  const post = guardedUpstreamPost(upstreamResolve, allowLoopbackUpstreams, dispatchedPost(dispatcher), {
    ms: RESOLVED_FOR_MS,
    now: Date.now,
  });
  const upstreamPool = new UpstreamPool({ fetchFor: () => upstreamFetch, postFor: () => post });
  // Aborted as shutdown begins, so that event streams end rather than hold their connections.
  const closing = new AbortController();
  // One listener per open stream (a 2025 client's GET stream each): no ceiling, no warning.
  setMaxListeners(0, closing.signal);
  const app = createApp({
    closing: closing.signal,
    callRecorder,
    upstreamPool,
    ...(feed ? { freshness: feed.freshness } : {}),
    pendingAnswers: answers.pending,
    mcpFastLane: env.LOADOUT_MCP_FAST_LANE === "1",
    allowLoopbackUpstreams,
    resolveHost,
    ...(allowedHosts ? { allowedHosts } : {}),
    ...(options.clientMetadataFetch ? { clientMetadataFetch: options.clientMetadataFetch } : {}),
    ...(options.clock ? { clock: options.clock } : {}),
    ...(env.LOADOUT_PUBLIC_URL ? { publicUrl: env.LOADOUT_PUBLIC_URL } : {}),
    database: { acquire: () => ({ db: database.db, release: async () => {} }) },
    hasher: createPasswordHasher(nodeScrypt),
    passwordDictionary: async () =>
      (await import("../domain/accounts/common-password-dictionary")).commonPasswordDictionary,
    secretKey,
    previousSecretKeys: env.LOADOUT_PREVIOUS_SECRET_KEYS,
    logger,
    secureCookies: env.LOADOUT_MODE === "production",
    clientAddress: (c) => {
      if (trustProxy) {
        const forwarded = c.req.header("x-forwarded-for")?.split(",")[0]?.trim();
        if (forwarded) return forwarded;
      }
      return getConnInfo(c).remote.address ?? null;
    },
    ...(serveConsole ? nodeConsole(WEB_OUT) : {}),
  });

  // MCP POSTs take the Node adapter (the same pipeline without Hono's web objects) unless it or the
  // pipeline's own answers are switched off.
  const mcpLane =
    env.LOADOUT_MCP_FAST_LANE === "1" && env.LOADOUT_MCP_NODE_ADAPTER === "1" ? nodeMcpLane(app.mcpLane) : null;
  const hono = getRequestListener(app.fetch, { hostname: env.LOADOUT_HOST });
  const server = createServer((req, res) => {
    if (!mcpLane?.(req, res)) void hono(req, res);
  });
  server.listen(env.LOADOUT_PORT, env.LOADOUT_HOST);
  await new Promise<void>((resolve, reject) => {
    server.once("listening", () => resolve());
    server.once("error", reject);
  });
  const address = server.address() as AddressInfo;
  const displayHost = env.LOADOUT_HOST.includes(":") ? `[${env.LOADOUT_HOST}]` : env.LOADOUT_HOST;
  const url = env.LOADOUT_PUBLIC_URL?.replace(/\/$/, "") ?? `http://${displayHost}:${address.port}`;
  const setupSecret = await issueSetupSecret(database.db, new Date());
  // In the background, while a rotation is under way: secrets still under a previous key are
  // sealed again under the current one (a scan of every server, so not on every start).
  // In the background: a scan of every server, so not on every start (only during a rotation).
  const resealed = resealAndLog(app, env.LOADOUT_PREVIOUS_SECRET_KEYS, logger);
  return {
    url,
    setupUrl: setupSecret ? `${url}/setup/#token=${setupSecret}` : null,
    database,
    caughtUp: () => feed?.caughtUp() ?? Promise.resolve(),
    async close() {
      // Stop accepting; keep-alive connections with nothing in flight go at once, and streams end.
      closing.abort();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      // A connection whose answer ends during the drain is kept alive by Node until its client
      // closes it: it is closed as soon as it is idle.
      const idle = setInterval(() => server.closeIdleConnections(), 100);
      let drained = await settledWithin(closed, DRAIN_MS);
      // Calls still waiting on an upstream are cut short, which answers them as error results
      // (sent once, may have acted); upstream sessions are ended either way.
      await upstreamPool.close(STEP_MS);
      if (!drained) drained = await settledWithin(closed, ANSWER_MS);
      clearInterval(idle);
      if (!drained) {
        logger.log("warn", "shutdown: closing connections still busy", {});
        server.closeAllConnections();
        await closed;
      }
      // close() waits for every stream the dispatcher holds open; past the step, they are cut.
      if (!(await settledWithin(dispatcher.close(), STEP_MS))) await dispatcher.destroy().catch(() => {});
      await settledWithin(resealed, STEP_MS);
      if (!(await settledWithin(callRecorder.flush(), STEP_MS)))
        logger.log("error", "shutdown: the MCP call log could not be written in time", {});
      await settledWithin(feed?.close() ?? Promise.resolve(), STEP_MS);
      await settledWithin(answers.close(), STEP_MS);
      if (!options.database) await settledWithin(database.close(), STEP_MS);
    },
  };
}

/**
 * The Workers topology as production runs it, in workerd through Miniflare: the built api Worker
 * (api/dist/worker) with its static assets, local Hyperdrive, the call-log Queue (producer and
 * its own consumer) and its ChangeFeed Durable Object (listening on the database directly), and the proxy Worker (api/dist/proxy) with its UpstreamSessions Durable
 * Object, bound to each other as in infra/. The pieces come from the shared harness (paths, build,
 * assets, scratch database, shutdown). Used by the journey suite (test/src/journey) and the bench.
 * No test entry in front: what runs is the real script.
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { migratePostgresDatabase } from "@loadout/db/open";
import { Miniflare } from "miniflare";
import { unstable_readConfig } from "wrangler";
import {
  assetsOptions,
  buildWorkerIfStale,
  disposeAfterDatabase,
  proxyScriptPath,
  scratchDatabase,
  scriptPath,
  wranglerConfigPath,
} from "./harness";

const wranglerConfig = readFileSync(wranglerConfigPath, "utf8");
const compatibilityDate = /"compatibility_date"\s*:\s*"([^"]+)"/.exec(wranglerConfig)?.[1] ?? "2026-04-20";
const compatibilityFlags: string[] = JSON.parse(
  /"compatibility_flags"\s*:\s*(\[[^\]]*\])/.exec(wranglerConfig)?.[1] ?? '["nodejs_compat"]',
);

export interface WorkersTopology {
  mf: Miniflare;
  /** The bench's own fresh database, migrated; nothing else connects to it. */
  databaseUrl: string;
  databaseName: string;
  /** workerd's process id, whose CPU time covers both Workers. */
  workerdPid: number;
  /** What the Workers wrote to their console. */
  logs: string[];
  /** Sends a request into the api Worker, as `fetch` would (Miniflare's dispatchFetch). */
  send(url: string, init?: RequestInit): Promise<Response>;
  /**
   * Resolves once the ChangeFeed object answers counters (it starts listening with the first MCP
   * request). Until then requests read Postgres's counters, and the switch to the feed's counts as
   * a change, so a test that counts statements of warm calls waits for this first.
   */
  feedLive(timeoutMs?: number): Promise<void>;
  /**
   * With `secondApi`: sends a request into the second api Worker ("loadout-2"), its own isolate
   * (Miniflare's getWorker). Without it, absent.
   */
  sendToSecond?: (url: string, init?: RequestInit) => Promise<Response>;
  stop(): Promise<void>;
}

/** The workerd process Miniflare spawned under this one (the newest, if several). */
function findWorkerd(): number {
  const ours = new Set([process.pid]);
  const found: number[] = [];
  // /proc lists in pid order, so a parent comes before its children.
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (!ours.has(ppid)) continue;
    ours.add(pid);
    if (comm === "workerd") found.push(pid);
  }
  const pid = found.at(-1);
  if (pid === undefined) throw new Error("no workerd process under this one");
  return pid;
}

/** The call-log queue the production config names (infra/wrangler.jsonc `queues.producers`). */
const callLogQueue =
  unstable_readConfig({ config: wranglerConfigPath }).queues.producers?.find(
    (p: { binding: string }) => p.binding === "CALL_LOG",
  )?.queue ?? "loadout-call-log";

/** The second api Worker's name (`secondApi`). */
export const SECOND_API = "loadout-2";

export async function startWorkersTopology(
  bindings: Record<string, string>,
  options: {
    /** `false` leaves out the call-log Queue (each call is then written after its answer). */
    queue?: boolean;
    /** The proxy's LOADOUT_UPSTREAM_IDLE_MS: how long an object keeps unused sessions (default the Worker's). */
    proxyIdleMs?: number;
    /**
     * Where Hyperdrive connects, given the scratch database's URL: a pooler in front of it (the
     * bench's, see bench/pooler.ts) instead of the database itself.
     */
    hyperdriveVia?: (databaseUrl: string) => string;
    /** Opens workerd's V8 inspector on a free port (bench/workerd-profile.ts): `inspectorPort`. */
    inspector?: boolean;
    /**
     * Adds a second api Worker ("loadout-2") beside the first: the same script, bindings, Hyperdrive,
     * proxy service binding, assets and call-log producer, but no queue consumer (the first
     * consumes). workerd runs each named Worker in an isolate of its own, so this stands for two
     * isolates of the api Worker; reach it with `sendToSecond`. The proxy's binding back to the
     * api (LOADOUT_API) still names the first.
     */
    secondApi?: boolean;
    /**
     * `false` leaves out the ChangeFeed Durable Object (CHANGES): every MCP request then reads its
     * counters from Postgres, as a deployment without the binding does.
     */
    changeFeed?: boolean;
    /** Where the ChangeFeed object connects to listen, given the scratch database's URL (default: to it). */
    listenVia?: (databaseUrl: string) => string;
  } = {},
): Promise<WorkersTopology> {
  buildWorkerIfStale();
  const database = await scratchDatabase("loadout_bench_w");
  await migratePostgresDatabase(database.url);
  const logs: string[] = [];
  // Hyperdrive's local binding insists on a password; trust authentication ignores it.
  const hyperdrive = new URL(options.hyperdriveVia?.(database.url) ?? database.url);
  if (!hyperdrive.password) hyperdrive.password = "unused";
  const loopback = { LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" };
  // One description of the api Worker, so a second one (secondApi) differs only in its name and
  // in not consuming the queue.
  const apiWorker = (name: string, consumes: boolean) => ({
    name,
    modules: [{ type: "ESModule" as const, path: scriptPath }],
    modulesRoot: path.dirname(scriptPath),
    compatibilityDate,
    compatibilityFlags,
    hyperdrives: { HYPERDRIVE: hyperdrive.toString() },
    bindings: {
      // The feed listens on the database itself, never through Hyperdrive (as in production).
      ...(options.changeFeed === false
        ? {}
        : { LOADOUT_LISTEN_URL: options.listenVia?.(database.url) ?? database.url }),
      ...bindings,
      ...loopback,
    },
    ...(options.changeFeed === false
      ? {}
      : {
          // One object for the deployment, defined by the first api Worker and used by both.
          durableObjects: {
            CHANGES: name === "loadout" ? "ChangeFeed" : { className: "ChangeFeed", scriptName: "loadout" },
          },
        }),
    serviceBindings: { UPSTREAM: { name: "loadout-proxy", entrypoint: "UpstreamProxy" } },
    ...(options.queue === false
      ? {}
      : {
          queueProducers: { CALL_LOG: { queueName: callLogQueue } },
          ...(consumes
            ? {
                queueConsumers: {
                  [callLogQueue]: { maxBatchSize: 100, maxBatchTimeout: 1, maxRetries: 3, retryDelay: 1 },
                },
              }
            : {}),
        }),
    ...assetsOptions(),
  });
  const mf = new Miniflare({
    workers: [
      apiWorker("loadout", true),
      {
        name: "loadout-proxy",
        modules: true,
        scriptPath: proxyScriptPath,
        modulesRoot: path.dirname(proxyScriptPath),
        compatibilityDate,
        compatibilityFlags: ["nodejs_compat"],
        durableObjects: { SESSIONS: "UpstreamSessions", MAILBOXES: "ClientMailbox" },
        bindings:
          options.proxyIdleMs === undefined
            ? loopback
            : { ...loopback, LOADOUT_UPSTREAM_IDLE_MS: String(options.proxyIdleMs) },
        serviceBindings: { LOADOUT_API: { name: "loadout", entrypoint: "ToolsChanged" } },
      },
      ...(options.secondApi ? [apiWorker(SECOND_API, false)] : []),
    ],
    // No request.cf data: Miniflare would otherwise download it.
    cf: false,
    // workerd's own inspector (no Miniflare proxy in front): ws://127.0.0.1:<port>/<worker name>.
    ...(options.inspector ? { inspectorPort: 0 } : {}),
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      logs.push(`${level}: ${message}`);
    },
  });
  try {
    await mf.ready;
  } catch (error) {
    await disposeAfterDatabase(mf, database.drop);
    throw error;
  }
  return {
    mf,
    databaseUrl: database.url,
    databaseName: new URL(database.url).pathname.slice(1),
    workerdPid: findWorkerd(),
    logs,
    send: (url, init) =>
      mf.dispatchFetch(url, init as Parameters<Miniflare["dispatchFetch"]>[1]) as unknown as Promise<Response>,
    ...(options.secondApi
      ? {
          sendToSecond: async (url: string, init?: RequestInit) => {
            // Miniflare's types give the Fetcher workerd's Request in place of its fetch; it has one.
            const second = (await mf.getWorker(SECOND_API)) as unknown as {
              fetch(url: string, init?: RequestInit): Promise<Response>;
            };
            return second.fetch(url, init);
          },
        }
      : {}),
    async feedLive(timeoutMs = 15_000) {
      // Miniflare's types describe a fetch-only namespace; its stubs also carry the object's RPC methods.
      const namespace = (await mf.getDurableObjectNamespace("CHANGES", "loadout")) as unknown as {
        idFromName(name: string): unknown;
        get(id: unknown): { stamps(keys: string[]): Promise<Record<string, string> | null> };
      };
      for (const until = Date.now() + timeoutMs; Date.now() < until; ) {
        if (await namespace.get(namespace.idFromName("changes")).stamps(["user:probe"])) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error("the ChangeFeed object did not start listening");
    },
    stop: () => disposeAfterDatabase(mf, database.drop, database.url),
  };
}

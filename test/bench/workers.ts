/**
 * Workers figures (issue 17's targets), in workerd through Miniflare: the api Worker and the proxy
 * Worker with its Durable Object (test/src/worker/topology.ts), local Hyperdrive to a fresh database on the
 * machine's Postgres. Part of `npm run bench`; alone: `npx tsx test/bench/workers.ts`.
 * The topology runs twice. Once with Hyperdrive through pgbouncer (pooler.ts), which stands in for
 * Hyperdrive's pool of warm connections as production has it: its times are the targets' figures.
 * Once with local Hyperdrive straight to Postgres, a new backend per request: its times are printed
 * beside, and its statements are the ones counted (a pool keeps backends connected, whose counters
 * Postgres does not flush; the app sends the same statements either way).
 * The measured calls go over HTTP to workerd's socket, as a client's do (the setup uses dispatchFetch).
 * 1. Warm `tools/call skills get` with the SDK v2 client, negotiating 2026-07-28 and on the default
 *    2025 handshake: p50/p90 over CALLS sequential calls after WARM ones, and SQL statements per
 *    call, counted by Postgres (pg-statements.ts). Beside them, a request that reads no database
 *    (the protected-resource metadata): the floor of the harness and the Worker's own routing.
 * 2. A warm proxied call (`echo` of an upstream started here, imported, tested and approved
 *    through REST): p50/p90, SQL statements and upstream requests per call.
 * 3. The api Worker's bundle, gzip and raw: the script `npm run build -w @loadout/api` writes, which
 *    is the same `wrangler deploy --dry-run` of infra/wrangler.jsonc that bundle.test.ts sizes.
 * 4. Sign-up (scrypt in portable JS): wall time per request and workerd's CPU time per request
 *    (utime + stime of the workerd process), against Cloudflare's CPU limits per request.
 * The call log goes through the CALL_LOG Queue as in production (topology.ts): its consumer writes
 * a batch in one statement, counted by the rows' transactions and taken out, so a call's own
 * statements are what remains (the batches are printed beside). Every answer is checked;
 * any failure throws.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import postgres from "postgres";
import { addApprovedServer, signUpAccount } from "../src/helpers/account";
import type { Era } from "../src/helpers/mcp-parity";
import { startStatelessUpstream } from "../src/helpers/upstreams";
import { proxyScriptPath, scriptPath } from "../src/worker/harness";
import { startWorkersTopology, type WorkersTopology } from "../src/worker/topology";
import { createBenchSkill, MARKER, percentile, SKILL } from "./mcp";
import { StatementCounter } from "./pg-statements";
import { poolerMissing, startPooler } from "./pooler";
import { cpuMs } from "./proxy";

const CALLS = Number(process.env.BENCH_WORKERS_CALLS ?? 300);
const WARM = 30;
/** Calls of each kind per era before any series (see runTopology). */
const WARM_UP_CALLS = 150;
const SIGN_UPS = 5;
const ORIGIN = "http://loadout.test";
const PASSWORD = "correct horse battery";
const PG_BASE = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
/** The eras in the order they are measured (`BENCH_WORKERS_ERAS=legacy,modern` swaps them). */
const ERAS: Era[] = (process.env.BENCH_WORKERS_ERAS ?? "modern,legacy").split(",") as Era[];
/** Cloudflare's CPU time per request: the Free plan's limit, and the Paid plan's default (configurable to 5 min). */
const FREE_CPU_MS = 10;
const PAID_CPU_MS = 30_000;
const GZIP_TARGET = 600 * 1024;

export interface CallSeries {
  era: Era;
  calls: number;
  p50: number;
  p90: number;
  /** The calls' own statements: what Postgres counted, less the call log's batched inserts. */
  statementsPerCall: number;
  /** The call log's inserts per call (one statement per batch, after the answers). */
  callLogBatchesPerCall: number;
  /** New Postgres backends per call (local Hyperdrive opens one per connection the Worker makes). */
  sessionsPerCall: number;
  /**
   * The calls' own new backends per call: those less the call log's batches (the consumer opens one
   * connection a batch). A request's connection is opened by its first statement, so this is the
   * share of calls that sent any statement, counted apart from the ChangeFeed object, which stays
   * connected and whose heartbeat (a statement every 5 s) Postgres counts with the calls'.
   */
  callBackendsPerCall: number;
  upstreamRequestsPerCall?: number;
  /** Rows the call log wrote per call (after the answer): one of the statements counted. */
  callLogRowsPerCall: number;
  /** workerd's CPU time per call (both Workers and the runtime's own share: above what Cloudflare meters). */
  cpuPerCall: number;
}

/** One run of the topology: the calls' series and the no-database floor. */
export interface TopologyFigures {
  skillsGet: CallSeries[];
  proxied: CallSeries[];
  /** p50 of a request that reads no database (GET /.well-known/oauth-protected-resource). */
  noDatabaseP50: number;
}

export interface WorkersFigures {
  /** Through pgbouncer standing in for Hyperdrive's pool, or why it could not run. */
  pooled: TopologyFigures | { missing: string };
  /** Local Hyperdrive straight to Postgres (a new backend per request); statements counted here. */
  direct: TopologyFigures;
  bundle: { gzip: number; raw: number; proxyGzip: number; proxyRaw: number };
  signUp: { firstMs: number; count: number; wallP50: number; cpuP50: number };
  /** Transactions a new backend commits on its own (subtracted from the counts). */
  startupTransactions: number;
}

/** The Node figures of the same run (sequential, 2026-07-28 over plain fetch), printed beside. */
export interface NodeFigures {
  skillsGetP50?: number | undefined;
  proxiedP50?: number | undefined;
}

const textOf = (result: unknown) =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? "").join("\n");

async function connect(base: string, era: Era, token: string): Promise<Client> {
  const client = new Client(
    { name: `bench-workers-${era}`, version: "1.0.0" },
    era === "modern" ? { versionNegotiation: { mode: "auto" } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  if (client.getProtocolEra() !== era) throw new Error(`the client spoke ${client.getProtocolEra()}, not ${era}`);
  return client;
}

/** WARM calls, then CALLS timed ones, with the database's statements over the timed ones. */
async function series(
  w: WorkersTopology,
  counter: StatementCounter | null,
  era: Era,
  call: (i: number) => Promise<void>,
  upstreamRequests?: () => number,
): Promise<CallSeries> {
  for (let i = 0; i < WARM; i++) await call(i);
  // The ChangeFeed object's backend reports what it ran at its next heartbeat (every 5 s): past one,
  // nothing it ran before the window is counted in it.
  if (counter) await new Promise((resolve) => setTimeout(resolve, 5_500));
  // Read outside the counted window: its own backend has gone (and flushed) before `read` returns.
  const logBefore = await callLog(w.databaseUrl);
  const before = await counter?.read();
  const requests = upstreamRequests?.() ?? 0;
  const cpu = cpuMs(w.workerdPid);
  const times: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const start = performance.now();
    await call(i);
    times.push(performance.now() - start);
  }
  const upstream = upstreamRequests ? (upstreamRequests() - requests) / CALLS : undefined;
  // The Queue delivers a batch within a second (topology.ts): its insert is counted with the calls.
  await new Promise((resolve) => setTimeout(resolve, 2_500));
  const after = await counter?.read();
  // After the read: the records written after the last answers are in, and so is their CPU time.
  const cpuPerCall = (cpuMs(w.workerdPid) - cpu) / CALLS;
  const logAfter = await callLog(w.databaseUrl);
  const batches = logAfter.batches - logBefore.batches;
  return {
    era,
    calls: CALLS,
    p50: percentile(times, 0.5),
    p90: percentile(times, 0.9),
    statementsPerCall: counter && before && after ? (counter.statements(before, after) - batches) / CALLS : Number.NaN,
    callLogBatchesPerCall: batches / CALLS,
    sessionsPerCall: before && after ? (after.sessions - before.sessions) / CALLS : Number.NaN,
    callBackendsPerCall: before && after ? (after.sessions - before.sessions - batches) / CALLS : Number.NaN,
    callLogRowsPerCall: (logAfter.rows - logBefore.rows) / CALLS,
    cpuPerCall,
    ...(upstream === undefined ? {} : { upstreamRequestsPerCall: upstream }),
  };
}

/**
 * MCP call records so far (the call log's rows in audit_events), and the inserts that wrote them:
 * the rows of one batch share their transaction (`xmin`), one per statement.
 */
async function callLog(databaseUrl: string): Promise<{ rows: number; batches: number }> {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ rows: number; batches: number }[]>`
      select count(*)::int as rows, count(distinct xmin::text)::int as batches
      from audit_events where action = 'mcp.call'`;
    return { rows: row?.rows ?? 0, batches: row?.batches ?? 0 };
  } finally {
    await sql.end({ timeout: 5 });
  }
}

/** Sizes of the scripts startWorkersTopology built (or found current). */
function bundleSizes(): WorkersFigures["bundle"] {
  const api = readFileSync(scriptPath);
  const proxy = readFileSync(proxyScriptPath);
  return {
    gzip: gzipSync(api).byteLength,
    raw: api.byteLength,
    proxyGzip: gzipSync(proxy).byteLength,
    proxyRaw: proxy.byteLength,
  };
}

/** p50 of CALLS requests that read no database, over HTTP. */
async function noDatabaseP50(base: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < WARM + CALLS; i++) {
    const start = performance.now();
    const answer = await fetch(`${base}/.well-known/oauth-protected-resource`);
    await answer.text();
    if (answer.status !== 200) throw new Error(`the protected-resource metadata answered ${answer.status}`);
    if (i >= WARM) times.push(performance.now() - start);
  }
  return percentile(times, 0.5);
}

/**
 * One run of the topology: an account, a skill and an approved upstream, then the series. With
 * `counting` the database's statements are counted and sign-up is measured.
 */
async function runTopology(
  upstream: Awaited<ReturnType<typeof startStatelessUpstream>>,
  options: { counting: true } | { counting: false; hyperdriveVia: (url: string) => string },
): Promise<TopologyFigures & { signUp?: WorkersFigures["signUp"]; startupTransactions?: number }> {
  const w = await startWorkersTopology(
    { LOADOUT_SECRET_KEY: "bench-workers-secret-key-0123456789abcdef", LOADOUT_INSECURE_COOKIES: "1" },
    options.counting ? {} : { hyperdriveVia: options.hyperdriveVia },
  );
  const counter = options.counting ? new StatementCounter(PG_BASE, w.databaseUrl) : null;
  try {
    const base = String(await w.mf.ready).replace(/\/$/, "");
    // 4. Sign-up first: the first one also loads the password dictionary and warms the isolate.
    const signUp = async (email: string) => {
      const cpu = cpuMs(w.workerdPid);
      const start = performance.now();
      const account = await signUpAccount(ORIGIN, email, PASSWORD, w.send);
      return { account, wall: performance.now() - start, cpu: cpuMs(w.workerdPid) - cpu };
    };
    const first = await signUp("bench-workers@example.com");
    const account = first.account;
    const walls: number[] = [];
    const cpus: number[] = [];
    for (let i = 0; options.counting && i < SIGN_UPS; i++) {
      const timed = await signUp(`bench-workers-${i}@example.com`);
      walls.push(timed.wall);
      cpus.push(timed.cpu);
    }

    const token = (await account.token(["mcp", "skills:read", "skills:write"])).secret;
    await createBenchSkill(ORIGIN, token, w.send);
    await addApprovedServer(account, "bench", upstream.url);
    await counter?.calibrate();

    // Both eras warmed before either is measured: their code is mostly shared, and whichever ran
    // first would otherwise pay for its compilation alone (WARM per series is not enough for it).
    for (const era of ERAS) {
      const client = await connect(base, era, token);
      for (let i = 0; i < WARM_UP_CALLS; i++) {
        await client.callTool({ name: "skills", arguments: { action: "get", name: SKILL } });
        await client.callTool({ name: "bench_echo", arguments: { text: `warm-up ${i}` } });
      }
      await client.close().catch(() => {});
    }
    const skillsGet: CallSeries[] = [];
    const proxied: CallSeries[] = [];
    for (const era of ERAS) {
      const client = await connect(base, era, token);
      try {
        skillsGet.push(
          await series(w, counter, era, async () => {
            const got = await client.callTool({ name: "skills", arguments: { action: "get", name: SKILL } });
            if (got.isError || !textOf(got).includes(MARKER))
              throw new Error(`skills get (${era}) answered: ${textOf(got).slice(0, 300)}`);
          }),
        );
        proxied.push(
          await series(
            w,
            counter,
            era,
            async (i) => {
              const echoed = await client.callTool({ name: "bench_echo", arguments: { text: `warm ${i}` } });
              if (echoed.isError || !textOf(echoed).includes(`warm ${i}`))
                throw new Error(`bench_echo (${era}) answered: ${textOf(echoed).slice(0, 300)}`);
            },
            () => upstream.requests(),
          ),
        );
      } finally {
        await client.close().catch(() => {});
      }
    }

    return {
      skillsGet,
      proxied,
      noDatabaseP50: await noDatabaseP50(base),
      ...(options.counting
        ? {
            signUp: {
              firstMs: first.wall,
              count: SIGN_UPS,
              wallP50: percentile(walls, 0.5),
              cpuP50: percentile(cpus, 0.5),
            },
            startupTransactions: counter?.startupTransactions ?? 0,
          }
        : {}),
    };
  } catch (error) {
    console.error(`Worker console:\n${w.logs.slice(-40).join("\n")}`);
    throw error;
  } finally {
    await counter?.end();
    await w.stop();
  }
}

export async function benchWorkers(): Promise<WorkersFigures> {
  const upstream = await startStatelessUpstream({ name: "bench-workers-upstream" });
  const missing = poolerMissing();
  const pooler = missing ? null : await startPooler(PG_BASE);
  try {
    const { signUp, startupTransactions, ...direct } = await runTopology(upstream, { counting: true });
    const pooled = pooler ? await runTopology(upstream, { counting: false, hyperdriveVia: pooler.via }) : { missing };
    if (!signUp || startupTransactions === undefined) throw new Error("the counted run measured no sign-up");
    return {
      pooled: pooled as TopologyFigures | { missing: string },
      direct,
      bundle: bundleSizes(),
      signUp,
      startupTransactions,
    };
  } finally {
    await pooler?.stop();
    await upstream.stop();
  }
}

const x = (v: number) => v.toFixed(2);
const label = (s: string) => s.padEnd(49);
const kib = (bytes: number) => `${Math.round(bytes / 1024)} KiB`;
const ERA_LABEL: Record<Era, string> = { modern: "2026-07-28", legacy: "2025 handshake" };
const verdict = (value: number, target: number) =>
  `(${target === 0 ? (value === 0 ? "ok" : "NOT OK") : `${x(value / target)}×${value <= target ? "" : ", OVER"}`})`;

const detail = (s: CallSeries) =>
  `besides: the call log's batched inserts ${x(s.callLogBatchesPerCall)} per call (the Queue's consumer, after the answers; ${x(s.callLogRowsPerCall)} rows per call); new Postgres backends per call ${x(s.sessionsPerCall)}`;
const printCpu = (s: CallSeries) =>
  console.log(
    `${label("  workerd CPU time per call")}${x(s.cpuPerCall).padStart(6)} ms     Free plan ≤ ${FREE_CPU_MS} ms ${verdict(s.cpuPerCall, FREE_CPU_MS)}`,
  );

/** The section `npm run bench` prints. */
export function printWorkers(f: WorkersFigures, node: NodeFigures = {}): void {
  const pooled = "missing" in f.pooled ? null : f.pooled;
  // The targets' figures: through the pool where it ran, else straight to Postgres.
  const timed = pooled ?? f.direct;
  console.log(
    `\n${label(`Workers (workerd, Miniflare, Hyperdrive ${pooled ? "through pgbouncer" : "straight to Postgres"})`)}measured     target        (SDK v2 client over HTTP, ${timed.skillsGet[0]?.calls ?? 0} sequential warm calls each)`,
  );
  if (!pooled)
    console.log(
      `  (${(f.pooled as { missing: string }).missing}: the times below include a new Postgres backend per request, which Hyperdrive's pool spares production)`,
    );
  const beside = (direct: CallSeries | undefined, p50: number | undefined) =>
    `${pooled && direct ? `; a new backend per request (local Hyperdrive as is): p50 ${x(direct.p50)} ms` : ""}${p50 === undefined ? "" : `; Node this run: p50 ${x(p50)} ms (2026-07-28, plain fetch)`}`;
  console.log(
    `${label("a request that reads no database, p50")}${x(timed.noDatabaseP50).padStart(6)} ms     -                GET /.well-known/oauth-protected-resource: the harness and the Worker's routing, under every figure here${pooled ? `; ${x(f.direct.noDatabaseP50)} ms in the other run` : ""}`,
  );
  timed.skillsGet.forEach((s, i) => {
    const counted = f.direct.skillsGet[i];
    console.log(
      `${label(`tools/call skills get, ${ERA_LABEL[s.era]}, p50`)}${x(s.p50).padStart(6)} ms     ≤ 5 ms ${verdict(s.p50, 5)}   p90 ${x(s.p90)} ms${beside(pooled ? counted : undefined, node.skillsGetP50)}`,
    );
    if (counted)
      console.log(
        `${label("  SQL statements per call")}${x(counted.statementsPerCall).padStart(6)}        ≤ 1 ${verdict(counted.statementsPerCall, 1)}   calls that sent any ${x(counted.callBackendsPerCall)} (the ChangeFeed object's heartbeat, one every 5 s, is in Postgres's count); ${detail(counted)}`,
      );
    printCpu(s);
  });
  timed.proxied.forEach((s, i) => {
    const counted = f.direct.proxied[i];
    console.log(
      `${label(`proxied tools/call echo, ${ERA_LABEL[s.era]}, p50`)}${x(s.p50).padStart(6)} ms     -                p90 ${x(s.p90)} ms${beside(pooled ? counted : undefined, node.proxiedP50)}`,
    );
    if (counted)
      console.log(
        `${label("  calls that sent a SQL statement")}${x(counted.callBackendsPerCall).padStart(6)}        0 ${verdict(counted.callBackendsPerCall, 0)}     each would open its request's connection; Postgres counted ${x(counted.statementsPerCall)} statements per call, the ChangeFeed object's heartbeat (one every 5 s) with them; ${detail(counted)}`,
      );
    const upstream = s.upstreamRequestsPerCall ?? Number.NaN;
    console.log(
      `${label("  upstream requests per call")}${x(upstream).padStart(6)}        1 ${Math.abs(upstream - 1) < 0.005 ? "(ok)" : "(NOT OK)"}`,
    );
    printCpu(s);
  });
  const b = f.bundle;
  console.log(
    `${label("api Worker bundle, gzip")}${kib(b.gzip).padStart(10)}  ≤ 600 KiB ${verdict(b.gzip, GZIP_TARGET)}   raw ${kib(b.raw)}; proxy Worker ${kib(b.proxyGzip)} gzip, ${kib(b.proxyRaw)} raw`,
  );
  const s = f.signUp;
  console.log(
    `${label(`sign-up (portable scrypt), median of ${s.count}, wall`)}${s.wallP50.toFixed(0).padStart(6)} ms     -                first sign-up ${s.firstMs.toFixed(0)} ms (loads the password dictionary)`,
  );
  console.log(
    `${label("  workerd CPU time per sign-up")}${s.cpuP50.toFixed(0).padStart(6)} ms     Free plan ≤ ${FREE_CPU_MS} ms ${verdict(s.cpuP50, FREE_CPU_MS)}   Paid default ≤ 30 s ${verdict(s.cpuP50, PAID_CPU_MS)}`,
  );
  console.log(
    `${label("  (counting: a new backend's own transactions)")}${String(f.startupTransactions).padStart(6)}        measured, subtracted per backend from pg_stat_database's xact delta`,
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) printWorkers(await benchWorkers());

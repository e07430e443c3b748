/**
 * The peers' setup in BENCHMARKS.md: the `echo` tool of @modelcontextprotocol/server-everything
 * (a 2025-11-25 session, in its own process) called directly and through Loadout's `/mcp`, warm,
 * with the official SDK v2 client on both sides, once on its default 2025 handshake and once with
 * `versionNegotiation: { mode: 'auto' }` (2026-07-28 with Loadout). Both eras are warmed up first
 * (WARM_UP_CALLS calls and a short load each). Then 500 sequential rounds after 50 warm-up rounds,
 * each calling directly, through Loadout and through the floor (a bare Node forwarder that passes
 * every request on as it came: floor-proxy.ts) on both eras, in orders that change from round to
 * round, and through one more loopback hop with no HTTP in it (floor-proxy.ts, tcp): what the hop
 * costs alone, beside what the floor's Node HTTP costs; then 20 concurrent clients for 10 s each
 * way and era, in two rounds of 5 s that take the eras and the sides in turn: the gateway's CPU
 * time per proxied call (/proc/<pid>/stat), the floor's, and Loadout's RSS after the loads. The
 * CPU time per call of the sequential calls is read too: one call at a time on shared cores costs
 * a process several times what a call under load does.
 */
import { performance } from "node:perf_hooks";
import { Client, SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { startEverything } from "../src/helpers/upstream";
import { startFloorProxy } from "./floor-proxy";
import { percentile, signUpAndToken } from "./mcp";
import { MCP_HUB_VERSION, startMcpHub } from "./mcp-hub";
import { cpuMs, rest, rssMiB } from "./proxy";
import { type MemoryFigures, type ServerProcess, startServerProcess } from "./server-process";

export interface EraFigures {
  era: "2025 handshake" | "2026-07-28";
  directP50: number;
  directP90: number;
  directP99: number;
  proxiedP50: number;
  proxiedP90: number;
  proxiedP99: number;
  /** Through a bare Node forwarder (floor-proxy.ts, transparent), from the same rounds. */
  floorP50: number;
  floorP90: number;
  floorP99: number;
  /** Through one more loopback hop with nothing parsed (floor-proxy.ts, tcp), from the same rounds. */
  hopP50: number;
  directRps: number;
  proxiedRps: number;
  floorRps: number;
  cpuPerCall: number;
  floorCpuPerCall: number;
  /** CPU time per call of the sequential rounds (both eras together), Loadout's and the floor's. */
  sequentialCpuPerCall: number;
  floorSequentialCpuPerCall: number;
  /** The highest RSS after one of this era's loads, and each of them. */
  rssMiB: number;
  rssEach: number[];
  /** The breakdown after this era's last load (the heap after GC: after a full collection). */
  memory: MemoryFigures;
}

/** mcp-hub's figures from the same rounds (mcp-hub.ts): its clients speak the legacy SSE transport. */
export interface PeerFigures {
  p50: number;
  p90: number;
  p99: number;
  /** The direct calls' of the same rounds (the 2025 handshake's, as its SSE clients'). */
  directP50: number;
  directP90: number;
  directP99: number;
  rps: number;
  directRps: number;
  cpuPerCall: number;
  rssMiB: number;
  upstreamTransport: string;
}

export interface EverythingFigures {
  /** The gateway after start-up and the upstream's import, before any MCP call. */
  idle: MemoryFigures;
  eras: EraFigures[];
  /** Null when mcp-hub could not be installed or started. */
  peer: PeerFigures | null;
}

const PAIRS = Number(process.env.BENCH_EVERYTHING_PAIRS ?? 500);
/**
 * The order of round `i`'s `n` calls: each round starts at another side and every other round runs
 * backwards, so that over any 2n rounds each side goes first, and last, equally often.
 */
function roundOrder(i: number, n: number): number[] {
  const order = Array.from({ length: n }, (_, k) => (k + Math.floor(i / 2)) % n);
  return i % 2 === 0 ? order : order.reverse();
}
const WARM = 50;
/** Sequential calls, then seconds of the 20-client load, per era before anything is measured. */
const WARM_UP_CALLS = 200;
const WARM_UP_LOAD_S = 3;
const CLIENTS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
/** The loads of each era and side are split into this many rounds of DURATION_S / LOAD_ROUNDS. */
const LOAD_ROUNDS = 2;
/** Longer than the call log's 250 ms batch interval, so a phase's CPU includes writing its rows. */
const SETTLE_MS = 500;

const ERAS = [
  ["2025 handshake", {}],
  ["2026-07-28", { versionNegotiation: { mode: "auto" as const } }],
] as const;

const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function benchEverything(server: ServerProcess): Promise<EverythingFigures> {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error("the server process has no pid");
  const upstream = await startEverything("streamableHttp");
  const floor = await startFloorProxy(upstream.url, "transparent");
  const hop = await startFloorProxy(upstream.url, "tcp");
  // The peer in front of the same upstream, measured in the same rounds.
  const hub = await startMcpHub(upstream.url);
  const clients: Client[] = [];
  try {
    const token = await signUpAndToken(server.url, "bench-everything@example.com", [
      "mcp",
      "servers:read",
      "servers:write",
    ]);
    await rest(server.url, token, "/v1/workspaces/me/servers/import", {
      text: JSON.stringify({ mcpServers: { everything: { url: upstream.url } } }),
    });
    const tested = await rest(server.url, token, "/v1/workspaces/me/servers/everything/test", {});
    if (tested.error) throw new Error(`Test of server-everything failed: ${String(tested.error)}`);
    await rest(server.url, token, "/v1/workspaces/me/servers/everything/tools/approve", {});

    const open = async (url: string, options: (typeof ERAS)[number][1], headers: Record<string, string> = {}) => {
      const client = new Client({ name: "bench", version: "1" }, options);
      await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
      clients.push(client);
      return client;
    };
    const openHub = async () => {
      const client = new Client({ name: "bench", version: "1" });
      await client.connect(new SSEClientTransport(new URL((hub as NonNullable<typeof hub>).url)));
      clients.push(client);
      return client;
    };
    const HUB_ECHO = "everything__echo";
    const time = async (client: Client, name: string, message: string) => {
      const start = performance.now();
      const result = await client.callTool({ name, arguments: { message } });
      const ms = performance.now() - start;
      if (result.isError || !textOf(result).includes(message))
        throw new Error(`${name} answered ${JSON.stringify(result).slice(0, 300)}`);
      return ms;
    };
    /** `CLIENTS` clients calling in turn until `seconds` pass: calls per second. */
    const load = async (make: () => Promise<Client>, name: string, seconds: number) => {
      const pool = await Promise.all(Array.from({ length: CLIENTS }, make));
      const start = performance.now();
      const deadline = start + seconds * 1000;
      let calls = 0;
      await Promise.all(
        pool.map(async (client, c) => {
          for (let i = 0; performance.now() < deadline; i++) {
            await time(client, name, `client ${c} call ${i}`);
            calls++;
          }
        }),
      );
      return calls / ((performance.now() - start) / 1000);
    };

    await sleep(SETTLE_MS);
    const idle = await server.memory();
    // Both eras warmed before either is measured: the gateway's code paths are mostly shared, and
    // whichever era ran first would otherwise pay for their compilation alone.
    const auth = { authorization: `Bearer ${token}` };
    for (const [, options] of ERAS) {
      const proxied = await open(`${server.url}/mcp`, options, auth);
      for (let i = 0; i < WARM_UP_CALLS; i++) await time(proxied, "everything_echo", `warm-up ${i}`);
      await load(() => open(`${server.url}/mcp`, options, auth), "everything_echo", WARM_UP_LOAD_S);
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    }
    if (hub) {
      const warming = await openHub();
      for (let i = 0; i < WARM_UP_CALLS; i++) await time(warming, HUB_ECHO, `warm-up ${i}`);
      await load(openHub, HUB_ECHO, WARM_UP_LOAD_S);
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    }
    // The sequential calls of both eras in one phase: each round calls directly, through Loadout
    // and through the floor on both eras, in another order each time, so that neither a drift in
    // the machine's speed nor what ran before (the other era's load) favours a side.
    // Era -1: mcp-hub's side, whose SSE clients have no era to choose.
    const sides: { era: number; series: number[]; call: () => Promise<number> }[] = [];
    if (hub) {
      const hubbed = await openHub();
      sides.push({ era: -1, series: [], call: () => time(hubbed, HUB_ECHO, "hub") });
    }
    for (const [e, [, options]] of ERAS.entries()) {
      const direct = await open(upstream.url, options);
      const proxied = await open(`${server.url}/mcp`, options, auth);
      const floored = await open(floor.url, options);
      const hopped = await open(hop.url, options);
      sides.push(
        { era: e, series: [], call: () => time(direct, "echo", "direct") },
        { era: e, series: [], call: () => time(proxied, "everything_echo", "proxied") },
        { era: e, series: [], call: () => time(floored, "echo", "floor") },
        { era: e, series: [], call: () => time(hopped, "echo", "hop") },
      );
    }
    let sequentialCpu = 0;
    let floorSequentialCpu = 0;
    for (let i = 0; i < WARM + PAIRS; i++) {
      if (i === WARM) {
        sequentialCpu = -cpuMs(pid);
        floorSequentialCpu = floor.pid === undefined ? Number.NaN : -cpuMs(floor.pid);
      }
      for (const k of roundOrder(i, sides.length)) {
        const side = sides[k] as (typeof sides)[number];
        const ms = await side.call();
        if (i >= WARM) side.series.push(ms);
      }
    }
    // Both eras' calls, through each: PAIRS a side and era.
    sequentialCpu = (sequentialCpu + cpuMs(pid)) / (PAIRS * ERAS.length);
    floorSequentialCpu =
      (floorSequentialCpu + (floor.pid === undefined ? 0 : cpuMs(floor.pid))) / (PAIRS * ERAS.length);
    await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    // The loads in rounds too: each round loads direct, the floor and Loadout on both eras, the
    // eras and the sides in another order each round, so that neither a drift in the machine's
    // speed nor what ran just before favours one era (loaded one era after the other, the second,
    // 2026-07-28, spent 0.12 ms more gateway CPU a call in two runs here; loaded in turn by a
    // probe, neither era did).
    const hubTotal = { calls: 0, ms: 0, cpu: 0, rss: [] as number[] };
    const loadHub = async () => {
      if (!hub) return;
      await sleep(SETTLE_MS);
      const before = cpuMs(hub.pid);
      const started = performance.now();
      const rps = await load(openHub, HUB_ECHO, DURATION_S / LOAD_ROUNDS);
      const ms = performance.now() - started;
      hubTotal.calls += rps * (ms / 1000);
      hubTotal.ms += ms;
      hubTotal.rss.push(rssMiB(hub.pid));
      await sleep(SETTLE_MS);
      hubTotal.cpu += cpuMs(hub.pid) - before;
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    };
    const totals = ERAS.map(() => ({
      direct: { calls: 0, ms: 0 },
      floor: { calls: 0, ms: 0, cpu: 0 },
      proxied: { calls: 0, ms: 0, cpu: 0 },
      rss: [] as number[],
      memory: undefined as MemoryFigures | undefined,
    }));
    const loadSide = async (e: number, side: number) => {
      const options = (ERAS[e] as (typeof ERAS)[number])[1];
      const total = totals[e] as (typeof totals)[number];
      const counted = async (make: () => Promise<Client>, name: string, into: { calls: number; ms: number }) => {
        const started = performance.now();
        const rps = await load(make, name, DURATION_S / LOAD_ROUNDS);
        const ms = performance.now() - started;
        into.calls += rps * (ms / 1000);
        into.ms += ms;
      };
      if (side === 0) await counted(() => open(upstream.url, options), "echo", total.direct);
      else if (side === 1) {
        await sleep(SETTLE_MS);
        const before = floor.pid === undefined ? Number.NaN : cpuMs(floor.pid);
        await counted(() => open(floor.url, options), "echo", total.floor);
        total.floor.cpu += (floor.pid === undefined ? Number.NaN : cpuMs(floor.pid)) - before;
      } else {
        await sleep(SETTLE_MS);
        const before = cpuMs(pid);
        await counted(() => open(`${server.url}/mcp`, options, auth), "everything_echo", total.proxied);
        total.rss.push(rssMiB(pid));
        await sleep(SETTLE_MS);
        total.proxied.cpu += cpuMs(pid) - before;
        // As after each era's load before the loads took rounds: a full collection with the
        // breakdown, so that each load but the first starts from a collected heap (docs/memory.md:
        // what V8's first full collection under load leaves is the start-up transient).
        total.memory = await server.memory();
      }
      await Promise.all(clients.splice(0).map((c) => c.close().catch(() => {})));
    };
    // mcp-hub's load opens a round, or closes it, in turn.
    for (let r = 0; r < LOAD_ROUNDS; r++) {
      if (r % 2 === 1) await loadHub();
      for (const e of roundOrder(r, ERAS.length)) for (const side of roundOrder(r + e, 3)) await loadSide(e, side);
      if (r % 2 === 0) await loadHub();
    }
    // Direct calls are the same on both eras (server-everything speaks 2025-11-25 only, so the
    // client negotiating 2026-07-28 falls back), so both eras' direct loads count for each ratio:
    // measured one era apart, they differed by up to 20 % in one run here.
    const directRps =
      totals.reduce((sum, t) => sum + t.direct.calls, 0) / (totals.reduce((sum, t) => sum + t.direct.ms, 0) / 1000);
    const figures: EraFigures[] = [];
    for (const [e, [era]] of ERAS.entries()) {
      const [d, p, f, h] = sides.filter((side) => side.era === e).map((side) => side.series) as [
        number[],
        number[],
        number[],
        number[],
      ];
      const total = totals[e] as (typeof totals)[number];
      figures.push({
        era,
        directP50: percentile(d, 0.5),
        directP90: percentile(d, 0.9),
        directP99: percentile(d, 0.99),
        proxiedP50: percentile(p, 0.5),
        proxiedP90: percentile(p, 0.9),
        proxiedP99: percentile(p, 0.99),
        floorP50: percentile(f, 0.5),
        floorP90: percentile(f, 0.9),
        floorP99: percentile(f, 0.99),
        hopP50: percentile(h, 0.5),
        directRps,
        proxiedRps: total.proxied.calls / (total.proxied.ms / 1000),
        floorRps: total.floor.calls / (total.floor.ms / 1000),
        cpuPerCall: total.proxied.cpu / total.proxied.calls,
        floorCpuPerCall: total.floor.cpu / total.floor.calls,
        sequentialCpuPerCall: sequentialCpu,
        floorSequentialCpuPerCall: floorSequentialCpu,
        rssMiB: Math.max(...total.rss),
        rssEach: total.rss,
        memory: total.memory as MemoryFigures,
      });
    }
    const hubSeries = sides.find((side) => side.era === -1)?.series;
    const legacyDirect = sides.find((side) => side.era === 0)?.series ?? [];
    const peer: PeerFigures | null =
      hub && hubSeries
        ? {
            p50: percentile(hubSeries, 0.5),
            p90: percentile(hubSeries, 0.9),
            p99: percentile(hubSeries, 0.99),
            directP50: percentile(legacyDirect, 0.5),
            directP90: percentile(legacyDirect, 0.9),
            directP99: percentile(legacyDirect, 0.99),
            rps: hubTotal.calls / (hubTotal.ms / 1000),
            directRps,
            cpuPerCall: hubTotal.cpu / hubTotal.calls,
            rssMiB: Math.max(...hubTotal.rss),
            upstreamTransport: hub.upstreamTransport,
          }
        : null;
    return { idle, eras: figures, peer };
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    await hub?.stop();
    await floor.stop();
    await hop.stop();
    await upstream.stop();
  }
}

/**
 * The peers' setup on a Loadout of its own, started as `npm start` starts it, on this Postgres
 * database: its RSS after the load is then the gateway's alone, not what the other benches left.
 */
export async function benchPeers(databaseUrl: string): Promise<EverythingFigures> {
  const server = await startServerProcess({
    DATABASE_URL: databaseUrl,
    LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
    LOADOUT_LOG: "json",
  });
  try {
    return await benchEverything(server);
  } finally {
    await server.stop();
  }
}

/**
 * mcp-hub 4.2.1's figures in BENCHMARKS.md (2026-12-01, another machine), printed beside the same
 * figures measured here in this run (PeerFigures), and the targets.
 */
const PEER = `mcp-hub ${MCP_HUB_VERSION}`;
const PEER_FIGURES = { p50: 0.74, p99: 3.15, ratio: 0.64, cpu: 0.66, rss: 182 };

export function printEverything(figures: EverythingFigures): void {
  const x = (v: number) => v.toFixed(2);
  const label = (s: string) => s.padEnd(52);
  const mib = (v: number) => `${v.toFixed(0)} MiB`;
  const breakdown = (m: MemoryFigures) =>
    `anonymous ${mib(m.rssAnon)}, file-backed ${mib(m.rssFile)}; V8 heap used ${mib(m.heapUsed)} of ${mib(m.heapTotal)} (${mib(m.heapUsedAfterGc)} after GC), external ${mib(m.external)}, array buffers ${mib(m.arrayBuffers)}`;
  console.log(`\n${label("Gateway RSS idle (started as `npm start` starts it)")}${mib(figures.idle.rss).padStart(10)}`);
  console.log(`${label("  of which")}${breakdown(figures.idle)}`);
  const peer = figures.peer;
  /** mcp-hub's figure measured here, then BENCHMARKS.md's. */
  const theirs = (here: string | null | undefined, table: string) => `${here ?? "-"} here (${table})`;
  for (const f of figures.eras) {
    console.log(
      `\n${label(`Proxy, the peers' setup: server-everything echo, ${f.era}`)}measured     ${PEER}: here (BENCHMARKS.md) / target`,
    );
    console.log(
      `${label(`added latency p50 (${x(f.proxiedP50)} vs ${x(f.directP50)} direct)`)}${x(f.proxiedP50 - f.directP50).padStart(6)} ms     ${theirs(peer && x(peer.p50 - peer.directP50), `${PEER_FIGURES.p50}`)} ms / ≤ 0.4 ms`,
    );
    console.log(
      `${label(`added latency p90 (${x(f.proxiedP90)} vs ${x(f.directP90)} direct)`)}${x(f.proxiedP90 - f.directP90).padStart(6)} ms     ${peer ? `${x(peer.p90 - peer.directP90)} here` : "-"}`,
    );
    console.log(
      `${label(`added latency p99 (${x(f.proxiedP99)} vs ${x(f.directP99)} direct)`)}${x(f.proxiedP99 - f.directP99).padStart(6)} ms     ${theirs(peer && x(peer.p99 - peer.directP99), `${PEER_FIGURES.p99}`)} ms`,
    );
    console.log(
      `${label("the floor: a bare Node forwarder adds, p50 / p90 / p99")}${x(f.floorP50 - f.directP50).padStart(6)} ms     -               p90 ${x(f.floorP90 - f.directP90)}, p99 ${x(f.floorP99 - f.directP99)} ms`,
    );
    console.log(`${label("  of it, one loopback hop with no HTTP, p50")}${x(f.hopP50 - f.directP50).padStart(6)} ms`);
    console.log(
      `${label("Loadout over the floor, p50 / p90 / p99")}${x(f.proxiedP50 - f.floorP50).padStart(6)} ms     -               p90 ${x(f.proxiedP90 - f.floorP90)}, p99 ${x(f.proxiedP99 - f.floorP99)} ms`,
    );
    console.log(
      `${label(`throughput, ${CLIENTS} clients (${f.proxiedRps.toFixed(0)} vs ${f.directRps.toFixed(0)} calls/s)`)}${x(f.proxiedRps / f.directRps).padStart(6)} ×      ${theirs(peer && x(peer.rps / peer.directRps), `${PEER_FIGURES.ratio}`)} / ≥ 0.85`,
    );
    console.log(
      `${label(`  the floor's (${f.floorRps.toFixed(0)} calls/s)`)}${x(f.floorRps / f.directRps).padStart(6)} ×`,
    );
    console.log(
      `${label(`gateway CPU per call, ${CLIENTS} clients`)}${x(f.cpuPerCall).padStart(6)} ms     ${theirs(peer && x(peer.cpuPerCall), `${PEER_FIGURES.cpu}`)} ms / ≤ 0.3 ms`,
    );
    console.log(`${label("  the floor's")}${x(f.floorCpuPerCall).padStart(6)} ms`);
    console.log(
      `${label("  one call at a time (both eras' rounds), Loadout's")}${x(f.sequentialCpuPerCall).padStart(6)} ms     the floor's ${x(f.floorSequentialCpuPerCall)} ms`,
    );
    console.log(
      `${label(`gateway RSS after the ${CLIENTS}-client load, highest`)}${f.rssMiB.toFixed(0).padStart(6)} MiB    ${theirs(peer?.rssMiB.toFixed(0), `${PEER_FIGURES.rss}`)} MiB / ≤ 180 MiB, aiming at 120   each round's: ${f.rssEach.map((v) => v.toFixed(0)).join(", ")} MiB`,
    );
    console.log(`${label("  of which")}${breakdown(f.memory)}`);
  }
  if (peer)
    console.log(
      `\n${PEER}, measured here: its clients on the legacy SSE transport (the SDK's SSEClientTransport), the same upstream reached over ${peer.upstreamTransport} (it tries streamable HTTP first), in the same rounds as Loadout's (${x(peer.rps)} calls/s under load).`,
    );
  else console.log(`\n${PEER} was not measured in this run (see above): only BENCHMARKS.md's figures are shown.`);
}

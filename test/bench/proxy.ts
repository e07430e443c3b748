/**
 * Proxy figures (Postgres), on loopback with a warm upstream connection:
 * 1. `tools/list` across 16 servers × 64 tools, all from the cache in Postgres: server p50/p99.
 * 2. The upstream requests a second session's listing costs (must be 0). Then lazy mode
 *    (`?tools=lazy`) over the same catalog: `tools/list` and `find_tools` server p50, and the
 *    estimated tokens of the full listing against the lazy one.
 * 3. `tools/call echo` of a light upstream of its own (`bench-echo`, the helper's 5 tools: the
 *    helper builds an SDK server per request, so 64 tools would cost more than the call), in a
 *    process of its own (see echo-process.ts), through /mcp against the same call made directly
 *    to the upstream and through the floor (floor-proxy.ts: a bare Node forwarder, what any Node
 *    gateway adds on this machine), 1,000 sequential rounds after 100 warm-up rounds, the three
 *    interleaved and each taking each place in the round in turn:
 *    p50/p90/p99 each way, the added latency of Loadout and of the floor, and the gateway's CPU
 *    time per proxied call over those rounds.
 * 4. Throughput: 20 concurrent clients (async loops of sequential calls) for BENCH_DURATION s
 *    (default 10) directly, then through Loadout, after 1 s of warm-up each: calls/s each way and
 *    their ratio; over the proxied phase, the gateway process's CPU time per call (utime + stime
 *    from /proc/<pid>/stat), the upstream requests per call, and its RSS afterwards.
 * Every answer is checked; any failure throws.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { estimatedTokens } from "@loadout/api/domain/mcp/tool-search";
import { type StatelessUpstream, startStatelessUpstream } from "../src/helpers/upstreams";
import { type EchoProcess, startEchoProcess } from "./echo-process";
import { type FloorProxy, startFloorProxy } from "./floor-proxy";
import { META, mcpHeaders, percentile, rpcAnswer, signUpAndToken } from "./mcp";
import type { ServerProcess } from "./server-process";

export interface ProxyFigures {
  directP50: number;
  directP90: number;
  directP99: number;
  proxiedP50: number;
  proxiedP90: number;
  proxiedP99: number;
  addedP50: number;
  addedP90: number;
  addedP99: number;
  /** What the bare forwarder adds (floor-proxy.ts), from the same rounds. */
  floorP50: number;
  floorP90: number;
  floorP99: number;
  /** Gateway CPU ms per proxied call over the sequential pairs. */
  sequentialCpuPerCall: number;
  clients: number;
  durationS: number;
  directRps: number;
  proxiedRps: number;
  /** Gateway CPU ms per proxied call over the concurrent phase. */
  cpuPerCall: number;
  /** Upstream HTTP requests per proxied call over the concurrent phase (1 is one round trip). */
  upstreamRequestsPerCall: number;
  /** Gateway VmRSS after the concurrent phase. */
  rssMiB: number;
  listServers: number;
  listTools: number;
  listP50: number;
  lazyListP50: number;
  findToolsP50: number;
  /** Estimated tokens (see domain/mcp/tool-search.ts) of the full `tools/list` and of the lazy one. */
  fullListTokens: number;
  lazyListTokens: number;
  listP99: number;
  secondSessionUpstreamRequests: number;
  /** Bytes of each of Loadout's MCP Apps views, as `resources/read` serves them to a negotiating client. */
  viewBytes: Record<string, number>;
}

const SERVERS = 16;
const TOOLS_PER_SERVER = 64;
const PAIRS = Number(process.env.BENCH_PROXY_PAIRS ?? 1000);
const WARM_PAIRS = 100;
const CLIENTS = 20;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const WARM_S = 1;
/** The light upstream's slug; its echo is `bench-echo_echo` through Loadout. */
const ECHO_SLUG = "bench-echo";
const PROXIED_ECHO = `${ECHO_SLUG}_echo`;
/** Longer than the call log's 250 ms batch interval, so a phase's CPU includes writing its audit rows. */
const SETTLE_MS = 500;

const CLK_TCK = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** A process's CPU time so far (user + system, all threads), in ms. */
export function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may hold spaces: state is field 3, utime 14, stime 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  if (!Number.isFinite(ticks)) throw new Error(`unreadable /proc/${pid}/stat: ${stat}`);
  return (ticks * 1000) / CLK_TCK;
}

export function rssMiB(pid: number): number {
  const kb = Number(/^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
  if (!Number.isFinite(kb)) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return kb / 1024;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const callBody = (name: string, text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: { text }, _meta: META },
  });
/** Lazy-mode rounds (each a listing and a find_tools), the first 20 warming up. */
const LAZY_ROUNDS = 120;
/** A 2026-07-28 client's capabilities negotiating MCP Apps. */
const APPS_CAPABILITIES = {
  extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } },
};
const LIST_BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });

export async function rest(url: string, token: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method: body === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await res.json()) as Record<string, unknown>;
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${JSON.stringify(json).slice(0, 300)}`);
  return json;
}

async function timedCall(url: string, headers: Record<string, string>, body: string, expect: string) {
  const start = performance.now();
  const res = await fetch(url, { method: "POST", headers, body });
  const answer = await rpcAnswer(res);
  const ms = performance.now() - start;
  const content = answer.result?.content as { text?: string }[] | undefined;
  if (res.status !== 200 || answer.result?.isError || content?.[0]?.text !== expect)
    throw new Error(`the call answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  return ms;
}

/** `CLIENTS` loops of sequential checked calls until `seconds` pass; every call started is awaited. */
async function concurrentCalls(url: string, headers: Record<string, string>, name: string, seconds: number) {
  const start = performance.now();
  const deadline = start + seconds * 1000;
  let calls = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const text = `client ${client} call ${i}`;
        await timedCall(url, headers, callBody(name, text), text);
        calls++;
      }
    }),
  );
  return { calls, seconds: (performance.now() - start) / 1000 };
}

async function importServers(url: string, token: string, mcpServers: Record<string, { url: string }>) {
  await rest(url, token, "/v1/workspaces/me/servers/import", { text: JSON.stringify({ mcpServers }) });
  for (const slug of Object.keys(mcpServers)) {
    const tested = await rest(url, token, `/v1/workspaces/me/servers/${slug}/test`, {});
    if (tested.error) throw new Error(`Test of ${slug} failed: ${String(tested.error)}`);
    await rest(url, token, `/v1/workspaces/me/servers/${slug}/tools/approve`, {});
  }
}

export async function benchProxy(server: ServerProcess): Promise<ProxyFigures> {
  const pid = server.child.pid;
  if (pid === undefined) throw new Error("the server process has no pid");
  const upstreams: StatelessUpstream[] = [];
  let echo: EchoProcess | undefined;
  let floor: FloorProxy | undefined;
  try {
    const token = await signUpAndToken(server.url, "bench-proxy@example.com", ["mcp", "servers:read", "servers:write"]);
    // One upstream per server with 60 fillers on top of the helper's own tools (Loadout offers 64 of each).
    for (let i = 0; i < SERVERS; i++)
      upstreams.push(await startStatelessUpstream({ extraTools: TOOLS_PER_SERVER - 4 }));
    await importServers(
      server.url,
      token,
      Object.fromEntries(upstreams.map((u, i) => [`bench-${String(i).padStart(2, "0")}`, { url: u.url }])),
    );

    // 1 and 2. Listings from the cache; no upstream hears of them.
    const before = upstreams.reduce((n, u) => n + u.requests(), 0);
    const list: number[] = [];
    let listed = 0;
    for (let i = 0; i < Number(process.env.BENCH_PROXY_LISTS ?? 220); i++) {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: mcpHeaders(token, "tools/list"),
        body: LIST_BODY,
      });
      const answer = await rpcAnswer(res);
      const dur = Number(/dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "")?.[1]);
      if (res.status !== 200 || answer.error || !Number.isFinite(dur))
        throw new Error(`tools/list answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
      listed = (answer.result?.tools as unknown[] | undefined)?.length ?? 0;
      if (i >= 20) list.push(dur);
    }
    const after = upstreams.reduce((n, u) => n + u.requests(), 0);

    // Lazy mode over the same catalog: its listing, and a search of it.
    const lazyList: number[] = [];
    const found: number[] = [];
    let fullTools: unknown[] = [];
    let lazyTools: unknown[] = [];
    {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: mcpHeaders(token, "tools/list"),
        body: LIST_BODY,
      });
      fullTools = ((await rpcAnswer(res)).result?.tools as unknown[] | undefined) ?? [];
    }
    const findBody = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "find_tools", arguments: { query: "filler query" }, _meta: META },
    });
    for (let i = 0; i < LAZY_ROUNDS; i++) {
      const listed = await fetch(`${server.url}/mcp?tools=lazy`, {
        method: "POST",
        headers: mcpHeaders(token, "tools/list"),
        body: LIST_BODY,
      });
      const listAnswer = await rpcAnswer(listed);
      lazyTools = (listAnswer.result?.tools as unknown[] | undefined) ?? [];
      const searched = await fetch(`${server.url}/mcp?tools=lazy`, {
        method: "POST",
        headers: mcpHeaders(token, "tools/call", "find_tools"),
        body: findBody,
      });
      const searchAnswer = await rpcAnswer(searched);
      const hits = (searchAnswer.result?.structuredContent as { tools?: unknown[] } | undefined)?.tools?.length ?? 0;
      if (listed.status !== 200 || lazyTools.length !== 4 || searched.status !== 200 || hits === 0)
        throw new Error(`lazy mode answered ${JSON.stringify({ listAnswer, searchAnswer }).slice(0, 300)}`);
      if (i >= 20) {
        lazyList.push(Number(/dur=([\d.]+)/.exec(listed.headers.get("server-timing") ?? "")?.[1]));
        found.push(Number(/dur=([\d.]+)/.exec(searched.headers.get("server-timing") ?? "")?.[1]));
      }
    }

    // Loadout's MCP Apps views, read as a client that negotiated the extension reads them.
    const viewBytes: Record<string, number> = {};
    for (const uri of ["ui://loadout/skills.html", "ui://loadout/skill-edit.html"]) {
      const res = await fetch(`${server.url}/mcp`, {
        method: "POST",
        headers: mcpHeaders(token, "resources/read", uri),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "resources/read",
          params: { uri, _meta: { ...META, "io.modelcontextprotocol/clientCapabilities": APPS_CAPABILITIES } },
        }),
      });
      const text = ((await rpcAnswer(res)).result?.contents as { text?: string }[] | undefined)?.[0]?.text;
      if (res.status !== 200 || !text) throw new Error(`resources/read ${uri} answered ${res.status}`);
      viewBytes[uri] = new TextEncoder().encode(text).length;
    }

    // The light upstream for the calls, imported after the listings so that they stay 16 × 64.
    echo = await startEchoProcess("bench-echo");
    await importServers(server.url, token, { [ECHO_SLUG]: { url: echo.url } });
    const directHeaders = { ...mcpHeaders("", "tools/call", "echo") };
    delete directHeaders.authorization;
    const proxiedHeaders = mcpHeaders(token, "tools/call", PROXIED_ECHO);
    floor = await startFloorProxy(echo.url);

    // 3. Direct, through the floor and through Loadout, interleaved so that drift hits all alike.
    // Each takes each place in the round in turn: a call's pace depends on the one before it to
    // the same upstream (in a fixed order, the one right after the direct call ran ahead by about
    // a tenth of a millisecond here), which a fixed order would credit to one of them.
    const direct: number[] = [];
    const floored: number[] = [];
    const proxied: number[] = [];
    const ways = [
      { to: echo.url, headers: directHeaders, tool: "echo", into: direct },
      { to: floor.url, headers: directHeaders, tool: "echo", into: floored },
      { to: `${server.url}/mcp`, headers: proxiedHeaders, tool: PROXIED_ECHO, into: proxied },
    ];
    let sequentialCpu = 0;
    for (let i = 0; i < PAIRS + WARM_PAIRS; i++) {
      if (i === WARM_PAIRS) sequentialCpu = -cpuMs(pid);
      const text = `call ${i}`;
      for (let k = 0; k < ways.length; k++) {
        const way = ways[(i + k) % ways.length] as (typeof ways)[number];
        const ms = await timedCall(way.to, way.headers, callBody(way.tool, text), text);
        if (i >= WARM_PAIRS) way.into.push(ms);
      }
    }
    await sleep(SETTLE_MS);
    sequentialCpu += cpuMs(pid);

    // 4. Throughput each way, then the gateway's CPU per call and memory over the proxied phase.
    await concurrentCalls(echo.url, directHeaders, "echo", WARM_S);
    const directRun = await concurrentCalls(echo.url, directHeaders, "echo", DURATION_S);
    await concurrentCalls(`${server.url}/mcp`, proxiedHeaders, PROXIED_ECHO, WARM_S);
    await sleep(SETTLE_MS);
    const cpuBefore = cpuMs(pid);
    const requestsBefore = await echo.requests();
    const proxiedRun = await concurrentCalls(`${server.url}/mcp`, proxiedHeaders, PROXIED_ECHO, DURATION_S);
    const requestsAfter = await echo.requests();
    const rss = rssMiB(pid);
    await sleep(SETTLE_MS);
    const cpu = cpuMs(pid) - cpuBefore;

    const p50 = (xs: number[]) => percentile(xs, 0.5);
    const p90 = (xs: number[]) => percentile(xs, 0.9);
    const p99 = (xs: number[]) => percentile(xs, 0.99);
    return {
      directP50: p50(direct),
      directP90: p90(direct),
      directP99: p99(direct),
      proxiedP50: p50(proxied),
      proxiedP90: p90(proxied),
      proxiedP99: p99(proxied),
      addedP50: p50(proxied) - p50(direct),
      addedP90: p90(proxied) - p90(direct),
      addedP99: p99(proxied) - p99(direct),
      floorP50: p50(floored) - p50(direct),
      floorP90: p90(floored) - p90(direct),
      floorP99: p99(floored) - p99(direct),
      sequentialCpuPerCall: sequentialCpu / PAIRS,
      clients: CLIENTS,
      durationS: DURATION_S,
      directRps: directRun.calls / directRun.seconds,
      proxiedRps: proxiedRun.calls / proxiedRun.seconds,
      cpuPerCall: cpu / proxiedRun.calls,
      upstreamRequestsPerCall: (requestsAfter - requestsBefore) / proxiedRun.calls,
      rssMiB: rss,
      listServers: SERVERS,
      listTools: listed,
      listP50: p50(list),
      listP99: p99(list),
      lazyListP50: p50(lazyList),
      findToolsP50: p50(found),
      fullListTokens: estimatedTokens(fullTools),
      lazyListTokens: estimatedTokens(lazyTools),
      secondSessionUpstreamRequests: after - before,
      viewBytes,
    };
  } finally {
    await Promise.all([...upstreams, ...(echo ? [echo] : []), ...(floor ? [floor] : [])].map((u) => u.stop()));
  }
}

/** The section `npm run bench` prints. */
export function printProxy(f: ProxyFigures): void {
  const x = (v: number) => v.toFixed(2);
  const label = (s: string) => s.padEnd(49);
  const load = `${f.clients} clients × ${f.durationS} s`;
  const clients = `${f.clients} clients`;
  console.log(`\n${label("Proxy (Postgres, loopback, warm)")}measured     target`);
  console.log(
    `${label(`tools/call added latency, p50 (${x(f.proxiedP50)} vs ${x(f.directP50)} direct)`)}${x(f.addedP50).padStart(6)} ms     ≤ 1 ms (${x(f.addedP50 / 1)}×)   ratio ${x(f.proxiedP50 / f.directP50)}×   (BENCHMARKS.md aims at ≤ 0.4 ms)`,
  );
  console.log(
    `${label(`tools/call added latency, p90 (${x(f.proxiedP90)} vs ${x(f.directP90)} direct)`)}${x(f.addedP90).padStart(6)} ms     -                ratio ${x(f.proxiedP90 / f.directP90)}×`,
  );
  console.log(
    `${label(`tools/call added latency, p99 (${x(f.proxiedP99)} vs ${x(f.directP99)} direct)`)}${x(f.addedP99).padStart(6)} ms     ≤ 3 ms (${x(f.addedP99 / 3)}×)   ratio ${x(f.proxiedP99 / f.directP99)}×`,
  );
  console.log(
    `${label("the floor: a bare Node forwarder adds, p50 / p90 / p99")}${x(f.floorP50).padStart(6)} ms     -                p90 ${x(f.floorP90)} ms, p99 ${x(f.floorP99)} ms`,
  );
  console.log(
    `${label("Loadout over the floor, p50 / p90 / p99")}${x(f.addedP50 - f.floorP50).padStart(6)} ms     -                p90 ${x(f.addedP90 - f.floorP90)} ms, p99 ${x(f.addedP99 - f.floorP99)} ms`,
  );
  console.log(
    `${label("gateway CPU per proxied call, sequential")}${x(f.sequentialCpuPerCall).padStart(6)} ms     ≤ 0.4 ms (${x(f.sequentialCpuPerCall / 0.4)}×)`,
  );
  console.log(`${label(`tools/call, ${load}, direct`)}${f.directRps.toFixed(0).padStart(6)} calls/s`);
  console.log(
    `${label(`tools/call, ${load}, proxied`)}${f.proxiedRps.toFixed(0).padStart(6)} calls/s  ≥ 0.75× direct (${x(f.proxiedRps / f.directRps / 0.75)}×)   ratio ${x(f.proxiedRps / f.directRps)}×`,
  );
  console.log(
    `${label(`gateway CPU per proxied call, ${clients}`)}${x(f.cpuPerCall).padStart(6)} ms     ≤ 0.4 ms (${x(f.cpuPerCall / 0.4)}×)`,
  );
  console.log(
    `${label(`upstream requests per proxied call, ${clients}`)}${x(f.upstreamRequestsPerCall).padStart(6)}        1 ${Math.abs(f.upstreamRequestsPerCall - 1) < 0.005 ? "(ok)" : "(NOT OK)"}`,
  );
  console.log(
    `${label(`gateway RSS after the ${clients}`)}${f.rssMiB.toFixed(0).padStart(6)} MiB    -                the process that ran the sections above (the 16 MiB import among them); a gateway of its own: the peers' setup below`,
  );
  console.log(
    `${label(`tools/list, ${f.listServers} servers, ${f.listTools} tools, p50 server`)}${x(f.listP50).padStart(6)} ms     ≤ 5 ms (${x(f.listP50 / 5)}×)     p99 ${x(f.listP99)} ms`,
  );
  console.log(
    `${label(`tools/list in lazy mode (?tools=lazy), p50 server`)}${x(f.lazyListP50).padStart(6)} ms     ≤ 2 ms (${x(f.lazyListP50 / 2)}×)`,
  );
  console.log(
    `${label(`find_tools over the ${f.listTools} tools, p50 server`)}${x(f.findToolsP50).padStart(6)} ms     ≤ 2 ms (${x(f.findToolsP50 / 2)}×)`,
  );
  console.log(
    `${label("estimated tokens of tools/list, full / lazy")}${String(f.fullListTokens).padStart(6)}        ${f.lazyListTokens} lazy (${x(f.fullListTokens / Math.max(1, f.lazyListTokens))}× fewer)`,
  );
  for (const [uri, bytes] of Object.entries(f.viewBytes))
    console.log(
      `${label(`MCP Apps view ${uri}`)}${(bytes / 1024).toFixed(1).padStart(6)} KiB    ≤ 64 KiB (${x(bytes / 65536)}×)`,
    );
  console.log(
    `${label("upstream requests for a second session's listing")}${String(f.secondSessionUpstreamRequests).padStart(6)}        0 ${f.secondSessionUpstreamRequests === 0 ? "(ok)" : "(NOT OK)"}`,
  );
}

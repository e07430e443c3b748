/**
 * Proxy figures (Postgres), on loopback with a warm upstream connection:
 * 1. `tools/call` of an upstream tool through /mcp against the same call made directly to the
 *    upstream, 1,000 sequential pairs interleaved: the added latency at p50 and p99.
 * 2. `tools/list` across 16 servers × 64 tools, all from the cache in Postgres: server p50/p99.
 * 3. The upstream requests a second session's listing costs (must be 0).
 */
import { performance } from "node:perf_hooks";
import { type StatelessUpstream, startStatelessUpstream } from "../src/helpers/upstreams";
import { META, mcpHeaders, percentile, rpcAnswer, signUpAndToken } from "./mcp";
import type { ServerProcess } from "./server-process";

export interface ProxyFigures {
  directP50: number;
  directP99: number;
  proxiedP50: number;
  proxiedP99: number;
  addedP50: number;
  addedP99: number;
  listServers: number;
  listTools: number;
  listP50: number;
  listP99: number;
  secondSessionUpstreamRequests: number;
}

const SERVERS = 16;
const TOOLS_PER_SERVER = 64;
const PAIRS = Number(process.env.BENCH_PROXY_PAIRS ?? 1000);

const callBody = (name: string, text: string) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: { text }, _meta: META },
  });
const LIST_BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: META } });

async function rest(url: string, token: string, path: string, body?: unknown) {
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

export async function benchProxy(server: ServerProcess): Promise<ProxyFigures> {
  const upstreams: StatelessUpstream[] = [];
  try {
    const token = await signUpAndToken(server.url, "bench-proxy@example.com", ["mcp", "servers:read", "servers:write"]);
    // One upstream with 64 tools (issues, echo, progress, image and 60 fillers) per server.
    for (let i = 0; i < SERVERS; i++)
      upstreams.push(await startStatelessUpstream({ extraTools: TOOLS_PER_SERVER - 4 }));
    const mcpServers = Object.fromEntries(
      upstreams.map((u, i) => [`bench-${String(i).padStart(2, "0")}`, { url: u.url }]),
    );
    await rest(server.url, token, "/v1/workspaces/me/servers/import", { text: JSON.stringify({ mcpServers }) });
    for (const slug of Object.keys(mcpServers)) {
      const tested = await rest(server.url, token, `/v1/workspaces/me/servers/${slug}/test`, {});
      if (tested.error) throw new Error(`Test of ${slug} failed: ${String(tested.error)}`);
      await rest(server.url, token, `/v1/workspaces/me/servers/${slug}/tools/approve`, {});
    }
    const first = upstreams[0];
    if (!first) throw new Error("no upstream");

    // 1. Direct vs proxied, interleaved so that drift hits both alike.
    const direct: number[] = [];
    const proxied: number[] = [];
    const directHeaders = { ...mcpHeaders("", "tools/call", "echo") };
    delete directHeaders.authorization;
    const proxiedHeaders = mcpHeaders(token, "tools/call", "bench-00_echo");
    for (let i = 0; i < PAIRS + 100; i++) {
      const text = `call ${i}`;
      const d = await timedCall(first.url, directHeaders, callBody("echo", text), text);
      const p = await timedCall(`${server.url}/mcp`, proxiedHeaders, callBody("bench-00_echo", text), text);
      if (i >= 100) {
        direct.push(d);
        proxied.push(p);
      }
    }

    // 2 and 3. Listings from the cache; no upstream hears of them.
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

    const p50 = (xs: number[]) => percentile(xs, 0.5);
    const p99 = (xs: number[]) => percentile(xs, 0.99);
    return {
      directP50: p50(direct),
      directP99: p99(direct),
      proxiedP50: p50(proxied),
      proxiedP99: p99(proxied),
      addedP50: p50(proxied) - p50(direct),
      addedP99: p99(proxied) - p99(direct),
      listServers: SERVERS,
      listTools: listed,
      listP50: p50(list),
      listP99: p99(list),
      secondSessionUpstreamRequests: after - before,
    };
  } finally {
    await Promise.all(upstreams.map((u) => u.stop()));
  }
}

/** The section `npm run bench` prints. */
export function printProxy(f: ProxyFigures): void {
  const x = (v: number) => v.toFixed(2);
  const label = (s: string) => s.padEnd(49);
  console.log(`\n${label("Proxy (Postgres, loopback, warm)")}measured     target`);
  console.log(
    `${label(`tools/call added latency, p50 (${x(f.proxiedP50)} vs ${x(f.directP50)} direct)`)}${x(f.addedP50).padStart(6)} ms     ≤ 1 ms (${x(f.addedP50 / 1)}×)   ratio ${x(f.proxiedP50 / f.directP50)}×`,
  );
  console.log(
    `${label(`tools/call added latency, p99 (${x(f.proxiedP99)} vs ${x(f.directP99)} direct)`)}${x(f.addedP99).padStart(6)} ms     ≤ 3 ms (${x(f.addedP99 / 3)}×)   ratio ${x(f.proxiedP99 / f.directP99)}×`,
  );
  console.log(
    `${label(`tools/list, ${f.listServers} servers, ${f.listTools} tools, p50 server`)}${x(f.listP50).padStart(6)} ms     ≤ 5 ms (${x(f.listP50 / 5)}×)     p99 ${x(f.listP99)} ms`,
  );
  console.log(
    `${label("upstream requests for a second session's listing")}${String(f.secondSessionUpstreamRequests).padStart(6)}        0 ${f.secondSessionUpstreamRequests === 0 ? "(ok)" : "(NOT OK)"}`,
  );
}

/**
 * Where the api Worker's CPU goes on a warm MCP call in workerd: a V8 CPU profile of the "loadout"
 * isolate (and, for a proxied call, of the "loadout-proxy" isolate too) taken through workerd's
 * inspector, over N warm calls with the SDK v2 client (as test/bench/workers.ts calls them), printed
 * as self time per call by function and by package/file, plus inclusive time by function.
 *
 * The topology is topology.ts's, with workerd's inspector open (its `inspector` option): the api
 * Worker with assets, local Hyperdrive and the call-log Queue, and the proxy Worker with its
 * Durable Objects. The bundles are minified (infra/wrangler.jsonc `minify`): V8 reports the mangled
 * names, so every frame is mapped through the source map written beside the bundle
 * (api/dist/worker/worker.js.map, api/dist/proxy/proxy-worker.js.map) to its original file, line
 * and, where V8's name was mangled, the original name.
 *
 * Alone, from test/: `npx tsx bench/workerd-profile.ts`. Environment: PROFILE_CALLS (300),
 * PROFILE_WARM (50), PROFILE_INTERVAL_US (100), PROFILE_ERAS ("modern,legacy"), PROFILE_CASES
 * ("prm,skills,proxied"), PROFILE_TOP (30), PROFILE_OUT (a directory to write the .cpuprofile files),
 * PROFILE_OTHERS=1 (a second pass per case profiling workerd's other isolates: Miniflare's entry
 * Worker, the assets router, the queue broker).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { SourceMapConsumer } from "source-map";
import { addApprovedServer, signUpAccount } from "../src/helpers/account";
import type { Era } from "../src/helpers/mcp-parity";
import { startStatelessUpstream } from "../src/helpers/upstreams";
import { proxyScriptPath, root, scriptPath, wranglerConfigPath } from "../src/worker/harness";
import { startWorkersTopology } from "../src/worker/topology";
import { createBenchSkill, MARKER, SKILL } from "./mcp";
import { cpuMs } from "./proxy";

const CALLS = Number(process.env.PROFILE_CALLS ?? 300);
const WARM = Number(process.env.PROFILE_WARM ?? 50);
const INTERVAL_US = Number(process.env.PROFILE_INTERVAL_US ?? 100);
const ERAS = (process.env.PROFILE_ERAS ?? "modern,legacy").split(",") as Era[];
const CASES = new Set((process.env.PROFILE_CASES ?? "prm,skills,proxied").split(","));
const TOP = Number(process.env.PROFILE_TOP ?? 30);
const OUT = process.env.PROFILE_OUT;
const OTHERS = process.env.PROFILE_OTHERS === "1";
const ORIGIN = "http://loadout.test";

// ---- The inspector (Chrome DevTools protocol over `ws`, which ships without types here) ----

interface WsLike {
  on(event: "open", listener: () => void): void;
  on(event: "message", listener: (data: Buffer) => void): void;
  on(event: "error", listener: (error: Error) => void): void;
  send(data: string): void;
  close(): void;
}
const WebSocket = createRequire(import.meta.url)("ws") as new (
  url: string,
  options?: { maxPayload?: number },
) => WsLike;

interface CallFrame {
  functionName: string;
  scriptId: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

class Inspector {
  private next = 1;
  private waiting = new Map<number, { resolve(v: unknown): void; reject(e: Error): void }>();
  private constructor(private ws: WsLike) {
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as { id?: number; result?: unknown; error?: { message: string } };
      if (message.id === undefined) return;
      const waiter = this.waiting.get(message.id);
      this.waiting.delete(message.id);
      if (message.error) waiter?.reject(new Error(message.error.message));
      else waiter?.resolve(message.result);
    });
  }
  static async open(url: string): Promise<Inspector> {
    const ws = new WebSocket(url, { maxPayload: 1 << 30 });
    await new Promise<void>((resolve, reject) => {
      ws.on("open", resolve);
      ws.on("error", reject);
    });
    return new Inspector(ws);
  }
  call<T = unknown>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.next++;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }
  close() {
    this.ws.close();
  }
}

// ---- Source maps: the minified frames back to their files, lines and names ----

interface Mapped {
  name: string;
  file: string;
  line: number;
  pkg: string;
}

class BundleMap {
  private consumer: SourceMapConsumer;
  private lines: string[];
  /** Named mappings per generated line (1-based), by generated column. */
  private named = new Map<number, { column: number; name: string }[]>();
  private cache = new Map<string, Mapped>();
  constructor(
    private bundle: string,
    private outDir = path.dirname(bundle),
  ) {
    this.lines = readFileSync(bundle, "utf8").split("\n");
    const raw = JSON.parse(readFileSync(`${bundle}.map`, "utf8"));
    // wrangler writes a sourceRoot relative to its config's directory (infra/), not the map's.
    if (raw.sourceRoot) this.outDir = path.dirname(wranglerConfigPath);
    this.consumer = new SourceMapConsumer(raw);
    this.consumer.eachMapping((m) => {
      if (!m.name) return;
      let list = this.named.get(m.generatedLine);
      if (!list) {
        list = [];
        this.named.set(m.generatedLine, list);
      }
      list.push({ column: m.generatedColumn, name: m.name });
    });
    for (const list of this.named.values()) list.sort((a, b) => a.column - b.column);
  }
  matches(url: string): boolean {
    // By the whole file name: proxy-worker.js also ends with worker.js.
    return url.split("/").at(-1) === path.basename(this.bundle);
  }
  /** Relative to the repo for our files, `node_modules/<package>` for a dependency's. */
  private source(source: string): { file: string; pkg: string } {
    const abs = path.resolve(this.outDir, source);
    const nm = abs.lastIndexOf("node_modules/");
    if (nm >= 0) {
      const rest = abs.slice(nm + "node_modules/".length).split("/");
      // drizzle-orm's own maps point from its dist at ../src, so its files land in node_modules/src.
      if (rest[0] === "src") rest.unshift("drizzle-orm");
      const pkg = rest[0]?.startsWith("@") ? `${rest[0]}/${rest[1]}` : (rest[0] ?? "?");
      return { file: `${pkg}/${rest.slice(pkg.includes("/") ? 2 : 1).join("/")}`, pkg };
    }
    const rel = path.relative(root, abs);
    return { file: rel, pkg: rel };
  }
  map(frame: CallFrame): Mapped {
    const key = `${frame.functionName}@${frame.lineNumber}:${frame.columnNumber}`;
    const hit = this.cache.get(key);
    if (hit) return hit;
    const line = frame.lineNumber + 1;
    const column = frame.columnNumber;
    const pos = this.consumer.originalPositionFor({ line, column });
    const where = pos.source ? this.source(pos.source) : { file: path.basename(this.bundle), pkg: "(unmapped)" };
    // V8 reports the minified name; a property or method name survives minification, a local
    // binding's does not. Find the mapping of the binding V8 named (just before the function's
    // position) and take its original name.
    let name = frame.functionName;
    const list = this.named.get(line) ?? [];
    const text = this.lines[frame.lineNumber] ?? "";
    if (name) {
      const last = name.split(".").at(-1) ?? name;
      let lo = 0;
      let hi = list.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((list[mid]?.column ?? 0) <= column) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo - 1; i >= 0 && i >= lo - 40; i--) {
        const m = list[i];
        if (!m || column - m.column > 400) break;
        if (text.startsWith(last, m.column) && !/[\w$]/.test(text[m.column + last.length] ?? "")) {
          if (m.name !== last) name = name.slice(0, name.length - last.length) + m.name;
          break;
        }
      }
    } else name = "(anonymous)";
    const mapped = { name, file: where.file, line: (pos.line ?? 0) || line, pkg: where.pkg };
    this.cache.set(key, mapped);
    return mapped;
  }
}

const maps = [new BundleMap(scriptPath), new BundleMap(proxyScriptPath)];

function describe(frame: CallFrame): Mapped {
  const map = maps.find((m) => m.matches(frame.url));
  if (map) return map.map(frame);
  const name = frame.functionName || (frame.url ? "(anonymous)" : "(native, unnamed)");
  if (!frame.url) return { name, file: "", line: 0, pkg: name.startsWith("(") ? name : "(native)" };
  // workerd's own JavaScript (node: polyfills, cloudflare: modules) and Miniflare's injected scripts.
  const pkg = frame.url.includes(":") ? `workerd ${frame.url.split(/[/:]/)[0]}:` : frame.url;
  return { name, file: frame.url, line: frame.lineNumber + 1, pkg };
}

// ---- Aggregation ----

interface Row {
  key: string;
  us: number;
}

function analyse(profile: CpuProfile, calls: number, label: string, top_ = TOP): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  // A sample's time is the delta to the next sample, capped: V8 samples the isolate only while a
  // thread is in it, so the delta after the last sample of a burst spans the time the isolate sat
  // outside (waiting for Postgres, for the next request). The cap is twice the median delta, which
  // is the sampling interval this machine achieves (the one asked for, if it keeps up).
  const n = profile.samples.length;
  const sorted = profile.timeDeltas.slice(1).sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? INTERVAL_US;
  const cap = 2 * median;
  let uncapped = 0;
  for (let i = 0; i < n; i++) {
    const id = profile.samples[i] ?? 0;
    const dt = i + 1 < n ? (profile.timeDeltas[i + 1] ?? 0) : median;
    uncapped += dt;
    self.set(id, (self.get(id) ?? 0) + Math.min(dt, cap));
  }
  const fnSelf = new Map<string, number>();
  const pkgSelf = new Map<string, number>();
  const fileSelf = new Map<string, number>();
  const fnTotal = new Map<string, number>();
  const keyOf = new Map<number, { fn: string; pkg: string; file: string }>();
  const keys = (id: number) => {
    let k = keyOf.get(id);
    if (!k) {
      const node = byId.get(id);
      const d = node ? describe(node.callFrame) : { name: "?", file: "", line: 0, pkg: "?" };
      let fn = d.file ? `${d.name}  ${d.file}:${d.line}` : d.name;
      // A native function (a builtin or workerd's C++) is named with its JavaScript caller.
      const up = parent.get(id);
      const caller = up === undefined ? undefined : byId.get(up);
      if (!d.file && !d.name.startsWith("(") && caller && caller.callFrame.functionName !== "(root)") {
        const c = describe(caller.callFrame);
        fn = `${d.name}  [native, from ${c.name}  ${c.file}:${c.line}]`;
      } else if (d.name === "(native, unnamed)" && caller) {
        const c = describe(caller.callFrame);
        fn = `(native, unnamed)  [from ${c.name}  ${c.file}:${c.line}]`;
      }
      k = { fn, pkg: d.pkg, file: d.file || d.name };
      keyOf.set(id, k);
    }
    return k;
  };
  let busy = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const k = keys(id);
    if (k.fn === "(idle)") {
      idle += us;
      continue;
    }
    busy += us;
    fnSelf.set(k.fn, (fnSelf.get(k.fn) ?? 0) + us);
    pkgSelf.set(k.pkg, (pkgSelf.get(k.pkg) ?? 0) + us);
    fileSelf.set(k.file, (fileSelf.get(k.file) ?? 0) + us);
    // Inclusive: each function once per stack.
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const fn = keys(at).fn;
      if (fn === "(root)" || seen.has(fn)) continue;
      seen.add(fn);
      fnTotal.set(fn, (fnTotal.get(fn) ?? 0) + us);
    }
  }
  const top = (m: Map<string, number>): Row[] =>
    [...m]
      .map(([key, us]) => ({ key, us }))
      .sort((a, b) => b.us - a.us)
      .slice(0, top_);
  const print = (title: string, rows: Row[]) => {
    console.log(`\n  ${title}`);
    for (const r of rows)
      console.log(
        `  ${(r.us / calls).toFixed(1).padStart(8)} µs  ${((100 * r.us) / busy).toFixed(1).padStart(5)}%  ${r.key}`,
      );
  };
  console.log(
    `\n=== ${label}: ${calls} calls, ${(n / calls).toFixed(1)} samples per call, median interval ${median} µs; sampled (capped at ${cap} µs, not idle) ${(busy / calls).toFixed(0)} µs per call, idle ${(idle / calls).toFixed(0)} µs; wall covered ${(uncapped / calls).toFixed(0)} µs per call`,
  );
  print("self time per call, by function", top(fnSelf));
  if (top_ < TOP) return;
  print("self time per call, by package (our files by file)", top(pkgSelf));
  print("self time per call, by file", top(fileSelf));
  print("inclusive time per call, by function", top(fnTotal));
}

// ---- The run ----

const textOf = (result: unknown) =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? "").join("\n");

const topology = await startWorkersTopology(
  { LOADOUT_SECRET_KEY: "bench-workers-secret-key-0123456789abcdef", LOADOUT_INSECURE_COOKIES: "1" },
  { inspector: true },
);
const w = { ...topology, inspectorPort: Number((await topology.mf.getInspectorURL()).port) };
const upstream = CASES.has("proxied") ? await startStatelessUpstream({ name: "bench-workers-upstream" }) : undefined;
/** Every isolate workerd runs, by inspector target id (core:user:<worker> for ours). */
const inspectors = new Map<string, Inspector>();
const LOADOUT = "core:user:loadout";
const PROXY = "core:user:loadout-proxy";

async function openInspectors() {
  const listing = (await (await fetch(`http://127.0.0.1:${w.inspectorPort}/json`)).json()) as {
    id: string;
    webSocketDebuggerUrl?: string;
  }[];
  for (const t of listing) {
    if (!t.webSocketDebuggerUrl) continue;
    const i = await Inspector.open(t.webSocketDebuggerUrl);
    await i.call("Profiler.enable");
    await i.call("Profiler.setSamplingInterval", { interval: INTERVAL_US });
    inspectors.set(t.id, i);
  }
  for (const id of [LOADOUT, PROXY])
    if (!inspectors.has(id)) throw new Error(`no inspector target ${id} in ${[...inspectors.keys()].join(", ")}`);
}

/** CALLS calls with the profiler running in these isolates only (each profiler costs CPU of its own). */
async function profile(call: (i: number) => Promise<void>, ids: string[]) {
  const open = ids.flatMap((id) => {
    const i = inspectors.get(id);
    return i ? [[id, i] as const] : [];
  });
  for (const [, i] of open) await i.call("Profiler.start");
  const cpu = cpuMs(w.workerdPid);
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await call(i);
  const cpuPerCall = (cpuMs(w.workerdPid) - cpu) / CALLS;
  const wallPerCall = (performance.now() - start) / CALLS;
  const profiles: [string, CpuProfile][] = [];
  for (const [id, i] of open) profiles.push([id, (await i.call<{ profile: CpuProfile }>("Profiler.stop")).profile]);
  return { cpuPerCall, wallPerCall, profiles };
}

function save(label: string, id: string, p: CpuProfile) {
  if (!OUT) return;
  mkdirSync(OUT, { recursive: true });
  writeFileSync(path.join(OUT, `${`${label}-${id}`.replace(/\W+/g, "-")}.cpuprofile`), JSON.stringify(p));
}

/**
 * WARM calls, CALLS unprofiled (workerd CPU), CALLS with `isolates` profiled (workerd CPU and the
 * profiles, in full); with PROFILE_OTHERS=1, CALLS more with the other isolates (Miniflare's entry,
 * the assets router, the queue's) profiled instead, in brief.
 */
async function profiled(label: string, call: (i: number) => Promise<void>, isolates: string[]) {
  for (let i = 0; i < WARM; i++) await call(i);
  const cpu = cpuMs(w.workerdPid);
  const start = performance.now();
  for (let i = 0; i < CALLS; i++) await call(i);
  const plainCpu = (cpuMs(w.workerdPid) - cpu) / CALLS;
  const plainWall = (performance.now() - start) / CALLS;
  const ours = await profile(call, isolates);
  console.log(
    `\n##### ${label}: workerd CPU per call ${plainCpu.toFixed(2)} ms unprofiled, ${ours.cpuPerCall.toFixed(2)} ms profiled; wall per call ${plainWall.toFixed(2)} / ${ours.wallPerCall.toFixed(2)} ms`,
  );
  for (const [id, p] of ours.profiles) {
    save(label, id, p);
    analyse(p, CALLS, `${label}, isolate ${id}`);
  }
  if (!OTHERS) return;
  const others = await profile(
    call,
    [...inspectors.keys()].filter((id) => !isolates.includes(id)),
  );
  console.log(`\n##### ${label}, the other isolates profiled: workerd CPU per call ${others.cpuPerCall.toFixed(2)} ms`);
  for (const [id, p] of others.profiles) {
    save(label, id, p);
    if (p.samples.length > CALLS / 10) analyse(p, CALLS, `${label}, isolate ${id}`, 8);
  }
}

try {
  await openInspectors();
  const account = await signUpAccount(ORIGIN, "profile@example.com", "correct horse battery", w.send);
  const token = (await account.token(["mcp", "skills:read", "skills:write"])).secret;
  await createBenchSkill(ORIGIN, token, w.send);
  if (upstream) await addApprovedServer(account, "bench", upstream.url);

  if (CASES.has("prm"))
    await profiled("GET /.well-known/oauth-protected-resource", async () => {
      const r = await w.send(`${ORIGIN}/.well-known/oauth-protected-resource`);
      if (r.status !== 200) throw new Error(`PRM answered ${r.status}`);
      await r.text();
    }, [LOADOUT]);

  for (const era of ERAS) {
    const client = new Client(
      { name: `bench-profile-${era}`, version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: "auto" } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${ORIGIN}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => w.send(String(url), init),
      }),
    );
    if (client.getProtocolEra() !== era) throw new Error(`the client spoke ${client.getProtocolEra()}, not ${era}`);
    try {
      if (CASES.has("skills"))
        await profiled(`tools/call skills get (${era})`, async () => {
          const got = await client.callTool({ name: "skills", arguments: { action: "get", name: SKILL } });
          if (got.isError || !textOf(got).includes(MARKER))
            throw new Error(`skills get answered: ${textOf(got).slice(0, 300)}`);
        }, [LOADOUT]);
      if (upstream)
        await profiled(
          `proxied tools/call bench_echo (${era})`,
          async (i) => {
            const echoed = await client.callTool({ name: "bench_echo", arguments: { text: `warm ${i}` } });
            if (echoed.isError || !textOf(echoed).includes(`warm ${i}`))
              throw new Error(`bench_echo answered: ${textOf(echoed).slice(0, 300)}`);
          },
          [LOADOUT, PROXY],
        );
    } finally {
      await client.close().catch(() => {});
    }
  }
} catch (error) {
  console.error(`Worker console:\n${w.logs.slice(-40).join("\n")}`);
  throw error;
} finally {
  for (const i of inspectors.values()) i.close();
  await upstream?.stop();
  await w.stop();
}

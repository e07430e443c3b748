/**
 * `npm run bench`: the foundation's figures.
 * 1. Token-authenticated GET /v1/me at 50 concurrent connections for 10 s (after a 2 s warm-up),
 *    on PGlite and on Postgres: requests/s, p50 and p99 latency, against the targets
 *    (Postgres: ≥ 3,000 requests/s, p99 < 25 ms on 2 cores).
 *    Then, on Postgres: the MCP endpoint, skills, the proxy, and the activity list over 1,000,000 events.
 *    Then the same journey on Workers, in workerd (workers.ts), beside the Node figures.
 * 2. One password hash (scrypt N=2^14, r=8, p=5): Node's native scrypt and the portable one the
 *    Worker runs, since Workers meter CPU per request.
 */
import { performance } from "node:perf_hooks";
import { nodeScrypt } from "@loadout/api/auth/node-scrypt";
import { createPasswordHasher, nobleScrypt } from "@loadout/api/auth/password";
import autocannon from "autocannon";
import postgres from "postgres";
import { type ActivityFigures, benchActivity, printActivity } from "./activity";
import { benchPeers, printEverything } from "./everything";
import { benchMcp, type McpFigures, printMcp } from "./mcp";
import { benchOAuth, type OAuthFigures, printOAuth } from "./oauth";
import { benchProxy, type ProxyFigures, printProxy } from "./proxy";
import { startServerProcess } from "./server-process";
import { benchSkills, type SkillsFigures } from "./skills";
import { benchWorkers, printWorkers } from "./workers";

const CONNECTIONS = 50;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
const PG_BASE = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

interface Row {
  engine: string;
  skills?: SkillsFigures;
  mcp?: McpFigures;
  proxy?: ProxyFigures;
  oauth: OAuthFigures;
  activity?: ActivityFigures;
  login: { wrong: number; unknown: number };
  rps: number;
  p50: number;
  p99: number;
  errors: number;
}

async function signUpAndToken(url: string): Promise<string> {
  const signUp = await fetch(`${url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench@example.com", password: "correct horse battery" }),
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const cookies = signUp.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c?.startsWith("lo_csrf="))?.slice(8) ?? "";
  const created = await fetch(`${url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: cookies.join("; "), "x-csrf-token": csrf },
    body: JSON.stringify({ name: "bench", scopes: ["mcp", "skills:read", "skills:write", "admin"] }),
  });
  if (created.status !== 201) throw new Error(`token creation failed: ${created.status}`);
  return ((await created.json()) as { secret: string }).secret;
}

function load(url: string, token: string, duration: number) {
  return autocannon({
    url: `${url}/v1/me`,
    connections: CONNECTIONS,
    duration,
    headers: { authorization: `Bearer ${token}` },
  });
}

/**
 * A wrong password and an unknown email must cost the same time (one scrypt either way), so that
 * timing does not tell which emails have accounts. Addresses vary (X-Forwarded-For, trusted here)
 * and attempts spread over accounts, so the rate limits stay out of the way.
 */
async function loginTimings(url: string): Promise<{ wrong: number; unknown: number }> {
  const attempt = async (email: string, i: number) => {
    const start = performance.now();
    const res = await fetch(`${url}/v1/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-forwarded-for": `10.0.${Math.floor(i / 200)}.${i % 200}` },
      body: JSON.stringify({ email, password: "not the password at all" }),
    });
    if (res.status !== 401) throw new Error(`login answered ${res.status}`);
    await res.arrayBuffer();
    return performance.now() - start;
  };
  const wrong: number[] = [];
  const unknown: number[] = [];
  // Eight of each (the account allows ten attempts per window), alternating so drift hits both alike.
  for (let i = 0; i < 8; i++) {
    wrong.push(await attempt("bench@example.com", 2 * i));
    unknown.push(await attempt(`nobody-${i}@example.com`, 2 * i + 1));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  return { wrong: median(wrong), unknown: median(unknown) };
}

async function measure(engine: string, env: Record<string, string>, databaseUrl?: string): Promise<Row> {
  const server = await startServerProcess({ LOADOUT_LOG: "json", LOADOUT_TRUST_PROXY: "1", ...env });
  try {
    const token = await signUpAndToken(server.url);
    const check = await fetch(`${server.url}/v1/me`, { headers: { authorization: `Bearer ${token}` } });
    if (check.status !== 200) throw new Error(`GET /v1/me answered ${check.status}`);
    await load(server.url, token, 2);
    const result = await load(server.url, token, DURATION_S);
    const login = await loginTimings(server.url);
    // Before benchSkills: its 10,000 rows go into this user's workspace.
    const mcp = databaseUrl ? await benchMcp(server, databaseUrl, token, DURATION_S) : undefined;
    const oauth = await benchOAuth(server);
    const skills = databaseUrl ? await benchSkills(server, databaseUrl, token) : undefined;
    const proxy = databaseUrl ? await benchProxy(server) : undefined;
    // Last: its million events would weigh on the figures above.
    const activity = databaseUrl ? await benchActivity(server, databaseUrl, token) : undefined;
    return {
      engine,
      login,
      oauth,
      ...(skills ? { skills } : {}),
      ...(mcp ? { mcp } : {}),
      ...(proxy ? { proxy } : {}),
      ...(activity ? { activity } : {}),
      rps: Math.round(result.requests.average),
      p50: result.latency.p50,
      p99: result.latency.p99,
      errors: result.errors + result.non2xx,
    };
  } finally {
    await server.stop();
  }
}

async function withPostgresDatabase<T>(fn: (url: string) => Promise<T>): Promise<T> {
  const admin = postgres(PG_BASE, { max: 1, onnotice: () => {} });
  const name = `loadout_bench_${Date.now().toString(36)}`;
  await admin.unsafe(`create database "${name}"`);
  try {
    const url = new URL(PG_BASE);
    url.pathname = `/${name}`;
    return await fn(url.toString());
  } finally {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  }
}

async function timeHash(label: string, hasher: ReturnType<typeof createPasswordHasher>) {
  await hasher.hash("warm up password");
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    const start = performance.now();
    await hasher.hash("correct horse battery");
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { label, median: times[2] ?? 0 };
}

const rows: Row[] = [];
rows.push(await measure("PGlite", {}));
rows.push(
  await withPostgresDatabase((url) =>
    // Loopback upstreams: the proxy bench starts its upstream servers on 127.0.0.1.
    measure("Postgres", { DATABASE_URL: url, LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" }, url),
  ),
);

const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(
  `\nGET /v1/me with an API token, ${CONNECTIONS} connections, ${DURATION_S} s (Node entry, JSON request logs on)`,
);
console.log(
  `${"engine".padEnd(10)}${pad("req/s", 9)}${pad("p50 ms", 9)}${pad("p99 ms", 9)}${pad("errors", 8)}   target (Postgres): ≥ 3000 req/s, p99 < 25 ms`,
);
for (const r of rows) {
  const verdict =
    r.engine === "Postgres"
      ? `${(r.rps / 3000).toFixed(2)}× the req/s target, p99 ${r.p99 < 25 ? "within" : "OVER"} target (${(r.p99 / 25).toFixed(2)}×)`
      : "";
  console.log(`${r.engine.padEnd(10)}${pad(r.rps, 9)}${pad(r.p50, 9)}${pad(r.p99, 9)}${pad(r.errors, 8)}   ${verdict}`);
}

console.log("\nSign-in refused (median of 8 each): the answer must not tell whether the email has an account");
for (const r of rows) {
  console.log(
    `${r.engine.padEnd(10)} wrong password ${r.login.wrong.toFixed(0)} ms   unknown email ${r.login.unknown.toFixed(0)} ms   ratio ${(r.login.unknown / r.login.wrong).toFixed(2)}`,
  );
}

const skillsRow = rows.find((r) => r.skills)?.skills;
if (skillsRow) {
  console.log("\nSkills (Postgres)                         measured     target");
  console.log(
    `list, first page of 10,000, server p50   ${skillsRow.listP50.toFixed(2).padStart(7)} ms   ≤ 10 ms (${(skillsRow.listP50 / 10).toFixed(2)}×)   p99 ${skillsRow.listP99.toFixed(2)} ms`,
  );
  console.log(
    `import 512 files, 16 MiB (${skillsRow.archiveMiB.toFixed(1)} MiB zip)   ${skillsRow.importMs.toFixed(0).padStart(7)} ms   ≤ 2000 ms (${(skillsRow.importMs / 2000).toFixed(2)}×)`,
  );
  console.log(
    `API memory above idle during import     ${skillsRow.importRssMiB.toFixed(0).padStart(7)} MiB  < 200 MiB (${(skillsRow.importRssMiB / 200).toFixed(2)}×)`,
  );
}

const mcpRow = rows.find((r) => r.mcp)?.mcp;
if (mcpRow) {
  printMcp(mcpRow);
  // The machine's own speed, for reading the figures: the same load on the plainest REST route.
  const me = rows.find((r) => r.engine === "Postgres");
  if (me)
    console.log(
      `${"skills get vs GET /v1/me on this run".padEnd(49)}${(mcpRow.getRps / me.rps).toFixed(2).padStart(6)}×     (GET /v1/me: ${me.rps} req/s here)`,
    );
}
const proxyRow = rows.find((r) => r.proxy)?.proxy;
if (proxyRow) printProxy(proxyRow);
// The peers' setup last, on a Loadout and a database of its own (its RSS is the gateway's alone).
printEverything(await withPostgresDatabase((url) => benchPeers(url)));
console.log("");
for (const r of rows) printOAuth(r.engine, r.oauth);
const activityRow = rows.find((r) => r.activity)?.activity;
if (activityRow) printActivity(activityRow);

const hashes = [
  await timeHash("Node native scrypt (Node entry)", createPasswordHasher(nodeScrypt)),
  await timeHash("portable scrypt (Worker entry)", createPasswordHasher(nobleScrypt)),
];
console.log("\nOne password hash, scrypt N=2^14 r=8 p=5 (median of 5)");
for (const h of hashes) console.log(`${h.label.padEnd(34)}${pad(h.median.toFixed(0), 6)} ms`);

// On a database and a workerd of its own, after the Node server has stopped.
printWorkers(await benchWorkers(), { skillsGetP50: mcpRow?.seqP50, proxiedP50: proxyRow?.proxiedP50 });

// postgres.js under sustained pipelining (patches/postgres+3.4.9.patch): without the patch the
// rate fell round after round (38k → 11k queries/s over 300k here) as its queue filled with holes.
{
  const sql = postgres(PG_BASE, { max: 4, fetch_types: false, onnotice: () => {} });
  const rates: number[] = [];
  for (let round = 0; round < 6; round++) {
    const start = performance.now();
    await Promise.all(
      Array.from({ length: 50 }, async () => {
        for (let i = 0; i < 1000; i++) await sql`select 1`;
      }),
    );
    rates.push(50_000 / ((performance.now() - start) / 1000));
  }
  await sql.end();
  const first = rates[0] ?? 1;
  const last = rates[rates.length - 1] ?? 0;
  console.log("\npostgres.js pipelined `select 1`, 50 concurrent on 4 connections, 6 rounds of 50k");
  console.log(
    `rounds (queries/s): ${rates.map((r) => Math.round(r)).join(", ")}   last/first ${(last / first).toFixed(2)} (unpatched: 0.29)`,
  );
}

const pg = rows.find((r) => r.engine === "Postgres");
if (pg && pg.errors > 0) process.exitCode = 1;
if (mcpRow && (mcpRow.getNon2xx > 0 || mcpRow.getErrors > 0 || !mcpRow.instructionsOk)) process.exitCode = 1;

/**
 * `npm run soak` (issue 21): 200 concurrent MCP sessions with the official SDK v2 client, half on
 * the 2025 handshake (the default) and half negotiating 2026-07-28 (`versionNegotiation: auto`),
 * each calling `skills get` and a proxied tool of a real upstream (server-everything's `echo`)
 * for 60 s (about one call per session per second), against Loadout on Postgres in its own process. Passes with 0 errors; prints the
 * server's RSS at the start, its peak under load, and after the load.
 *
 * Postgres: DATABASE_URL, else the machine's server on 127.0.0.1:5432; a database of its own is
 * created and dropped. SOAK_SESSIONS, SOAK_SECONDS and SOAK_PAUSE_MS (between a session's calls)
 * change the load.
 */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import postgres from "postgres";
import { startLoadoutProcess } from "../src/faults/loadout-process";
import { addApprovedServer, signUpAccount } from "../src/helpers/account";
import { startEverything } from "../src/helpers/upstream";

const SESSIONS = Number(process.env.SOAK_SESSIONS ?? 200);
const SECONDS = Number(process.env.SOAK_SECONDS ?? 60);
// Each session calls about once a second: a steady load for finding leaks and drift, under what
// the 2-core machines serve (npm run bench measures the peak). Saturated, latencies grow to
// seconds and say nothing more about endurance.
const PAUSE_MS = Number(process.env.SOAK_PAUSE_MS ?? 1000);
const BASE = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const textOf = (result: { content?: unknown }) =>
  ((result.content ?? []) as { type: string; text?: string }[]).map((c) => c.text ?? "").join("");

/** The process's resident set in MiB, from /proc (Linux). */
function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return Math.round((kb / 1024) * 10) / 10;
}

const name = `loadout_soak_${Date.now().toString(36)}`;
const admin = postgres(BASE, { max: 1, onnotice: () => {} });
await admin.unsafe(`create database "${name}"`);
const url = new URL(BASE);
url.pathname = `/${name}`;
const upstream = await startEverything();
const app = await startLoadoutProcess({
  DATABASE_URL: url.toString(),
  LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
  LOADOUT_LOG: "silent",
});
const pid = app.child.pid ?? 0;
const clients: Client[] = [];
let failed = false;
try {
  const account = await signUpAccount(app.url, "soak@example.com");
  const token = (await account.token(["mcp", "skills:write", "servers:read", "servers:write"])).secret;
  const created = await account.rest("/v1/workspaces/me/skills", {
    method: "POST",
    body: { name: "soak-skill", description: "Read by every soak session.", instructions: "# Soak\n\nSoak marker.\n" },
  });
  if (created.status !== 201) throw new Error(`creating the skill answered ${created.status}`);
  await addApprovedServer(account, "everything", upstream.url);

  const eras = { legacy: 0, modern: 0 };
  for (let i = 0; i < SESSIONS; i += 20) {
    await Promise.all(
      Array.from({ length: Math.min(20, SESSIONS - i) }, async (_, j) => {
        const modern = (i + j) % 2 === 1;
        const client = new Client(
          { name: `soak-${i + j}`, version: "1" },
          modern ? { versionNegotiation: { mode: "auto" } } : {},
        );
        await client.connect(
          new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
            requestInit: { headers: { authorization: `Bearer ${token}` } },
          }),
        );
        clients.push(client);
        eras[modern ? "modern" : "legacy"]++;
      }),
    );
  }

  const rssStart = rssMiB(pid);
  let rssPeak = rssStart;
  // Every 10 s too, to tell a plateau from steady growth.
  const rssEvery10s: number[] = [];
  let samples = 0;
  const sampler = setInterval(() => {
    const rss = rssMiB(pid);
    rssPeak = Math.max(rssPeak, rss);
    if (++samples % 20 === 0) rssEvery10s.push(rss);
  }, 500);
  const errors: string[] = [];
  const latencies: number[] = [];
  let calls = 0;
  const until = performance.now() + SECONDS * 1000;
  const session = async (client: Client, n: number) => {
    // Spread the first calls over a pause, so the sessions do not move in lockstep.
    await sleep((n * PAUSE_MS) / SESSIONS);
    for (let i = 0; performance.now() < until; i++) {
      const started = performance.now();
      try {
        if (i % 2 === 0) {
          const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "soak-skill" } });
          if (got.isError || !textOf(got).includes("Soak marker.")) throw new Error(textOf(got).slice(0, 200));
        } else {
          const message = `soak ${n} ${i}`;
          const echoed = await client.callTool({ name: "everything_echo", arguments: { message } });
          if (echoed.isError || !textOf(echoed).includes(message)) throw new Error(textOf(echoed).slice(0, 200));
        }
        calls++;
        latencies.push(performance.now() - started);
      } catch (error) {
        if (errors.length < 20) errors.push(String(error).slice(0, 300));
        else errors.push("…");
      }
      await sleep(PAUSE_MS);
    }
  };
  await Promise.all(clients.map((c, n) => session(c, n)));
  clearInterval(sampler);
  rssPeak = Math.max(rssPeak, rssMiB(pid));
  for (const client of clients.splice(0)) await client.close().catch(() => {});
  // After the load: what the process keeps once its sessions are gone.
  await sleep(5000);
  const rssEnd = rssMiB(pid);

  latencies.sort((a, b) => a - b);
  const at = (p: number) =>
    Math.round(latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))] ?? 0);
  console.log(
    JSON.stringify(
      {
        sessions: SESSIONS,
        eras,
        seconds: SECONDS,
        calls,
        callsPerSecond: Math.round(calls / SECONDS),
        p50Ms: at(0.5),
        p99Ms: at(0.99),
        errors: errors.length,
        rssMiB: { start: rssStart, peak: rssPeak, end: rssEnd, every10s: rssEvery10s },
        alive: app.exited() === undefined,
      },
      null,
      2,
    ),
  );
  if (errors.length > 0) console.error(`errors (first ${Math.min(20, errors.length)}):\n${errors.join("\n")}`);
  failed = errors.length > 0 || app.exited() !== undefined;
} finally {
  for (const client of clients) await client.close().catch(() => {});
  await app.stop();
  await upstream.stop();
  await admin.unsafe(`drop database if exists "${name}" with (force)`);
  await admin.end({ timeout: 5 });
}
process.exit(failed ? 1 : 0);

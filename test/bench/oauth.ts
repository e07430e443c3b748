/**
 * Token verification on /mcp: the same cheap MCP request (`tools/list`, stateless 2026-07-28) sent
 * with an API token and with an OAuth access token, interleaved, 1,000 of each after 100
 * warm-up ones; the figure is the difference of the server-side p50s (Server-Timing), which is
 * what verifying an access token adds over an API token. Target: ≤ 0.5 ms.
 *
 * Run alone with `npx tsx test/bench/oauth.ts` (Postgres at DATABASE_URL or 127.0.0.1:5432).
 */
import { createHash, randomBytes } from "node:crypto";
import type { ServerProcess } from "./server-process";

export interface OAuthFigures {
  apiP50: number;
  oauthP50: number;
  addedP50: number;
  apiP99: number;
  oauthP99: number;
}

const ROUNDS = 1000;
const WARMUP = 100;
const CALLBACK = "https://claude.ai/api/mcp/auth_callback";
const PING = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/list",
  params: {
    _meta: {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
    },
  },
});

const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

async function json(res: Response, what: string, status = 200): Promise<Record<string, unknown>> {
  const body = (await res.json()) as Record<string, unknown>;
  if (res.status !== status) throw new Error(`${what} answered ${res.status}: ${JSON.stringify(body).slice(0, 300)}`);
  return body;
}

/** An account with an `mcp` API token and an OAuth access token for the same user, by the real flow. */
async function tokens(url: string): Promise<{ api: string; oauth: string }> {
  const signUp = await fetch(`${url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "bench-oauth@example.com", password: "correct horse battery" }),
  });
  await json(signUp, "sign-up", 201);
  const cookies = signUp.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c?.startsWith("lo_csrf="))?.slice(8) ?? "";
  const session = { cookie: cookies.join("; "), "x-csrf-token": csrf, "content-type": "application/json" };
  const api = String(
    (
      await json(
        await fetch(`${url}/v1/tokens`, {
          method: "POST",
          headers: session,
          body: JSON.stringify({ name: "bench-oauth", scopes: ["mcp"] }),
        }),
        "token creation",
        201,
      )
    ).secret,
  );
  const client = await json(
    await fetch(`${url}/oauth/register`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ client_name: "Bench", redirect_uris: [CALLBACK] }),
    }),
    "registration",
    201,
  );
  const clientId = String(client.client_id);
  const verifier = randomBytes(32).toString("base64url");
  const authorize = await fetch(
    `${url}/oauth/authorize?${new URLSearchParams({
      response_type: "code",
      client_id: clientId,
      redirect_uri: CALLBACK,
      state: "bench",
      code_challenge: createHash("sha256").update(verifier).digest("base64url"),
      code_challenge_method: "S256",
      resource: `${url}/mcp`,
    })}`,
    { redirect: "manual" },
  );
  const request = new URL(authorize.headers.get("location") ?? "", url).searchParams.get("request");
  if (!request) throw new Error(`authorize answered ${authorize.status} without a consent request`);
  // The consent is answered from the browser that started it: its cookie from /oauth/authorize.
  const browser = authorize.headers.getSetCookie().map((c) => c.split(";")[0] ?? "");
  const decided = await json(
    await fetch(`${url}/v1/oauth/requests/${request}/decision`, {
      method: "POST",
      headers: { ...session, cookie: [session.cookie, ...browser].join("; ") },
      body: JSON.stringify({ approve: true }),
    }),
    "consent",
  );
  const code = new URL(String(decided.redirectTo)).searchParams.get("code") ?? "";
  const issued = await json(
    await fetch(`${url}/oauth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: CALLBACK,
        client_id: clientId,
        code_verifier: verifier,
        resource: `${url}/mcp`,
      }).toString(),
    }),
    "token exchange",
  );
  return { api, oauth: String(issued.access_token) };
}

async function serverTime(url: string, token: string): Promise<number> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    },
    body: PING,
  });
  const text = await res.text();
  if (res.status !== 200 || text.includes('"error"'))
    throw new Error(`tools/list answered ${res.status}: ${text.slice(0, 300)}`);
  const dur = Number(/dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "")?.[1]);
  if (!Number.isFinite(dur)) throw new Error("no Server-Timing header");
  return dur;
}

export async function benchOAuth(server: ServerProcess): Promise<OAuthFigures> {
  const { api, oauth } = await tokens(server.url);
  const apiTimes: number[] = [];
  const oauthTimes: number[] = [];
  for (let i = 0; i < ROUNDS + WARMUP; i++) {
    // Alternate which goes first, so neither always follows the other.
    const [first, second] = i % 2 === 0 ? [api, oauth] : [oauth, api];
    const a = await serverTime(server.url, first);
    const b = await serverTime(server.url, second);
    if (i < WARMUP) continue;
    apiTimes.push(first === api ? a : b);
    oauthTimes.push(first === api ? b : a);
  }
  const apiP50 = percentile(apiTimes, 0.5);
  const oauthP50 = percentile(oauthTimes, 0.5);
  return {
    apiP50,
    oauthP50,
    addedP50: oauthP50 - apiP50,
    apiP99: percentile(apiTimes, 0.99),
    oauthP99: percentile(oauthTimes, 0.99),
  };
}

export function printOAuth(engine: string, f: OAuthFigures): void {
  const x = (v: number) => v.toFixed(2);
  console.log(
    `${`token verification on /mcp (${engine}): OAuth vs API token, p50 added`.padEnd(72)}${x(f.addedP50).padStart(6)} ms   ≤ 0.5 ms${f.addedP50 <= 0.5 ? "" : " (OVER)"}   server p50 ${x(f.oauthP50)} vs ${x(f.apiP50)} ms, p99 ${x(f.oauthP99)} vs ${x(f.apiP99)} ms`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { startServerProcess } = await import("./server-process");
  const postgres = (await import("postgres")).default;
  const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const name = `loadout_bench_oauth_${process.pid}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  try {
    for (const [engine, env] of [
      ["PGlite", {}],
      ["Postgres", { DATABASE_URL: url.toString() }],
    ] as const) {
      const server = await startServerProcess({ LOADOUT_LOG: "silent", ...env });
      try {
        printOAuth(engine, await benchOAuth(server));
      } finally {
        await server.stop();
      }
    }
  } finally {
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

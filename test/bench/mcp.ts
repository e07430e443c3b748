/**
 * MCP figures (Postgres), on the stateless 2026-07-28 revision with an API token:
 * 1. tools/call `skills get` at 50 concurrent connections (after a 2 s warm-up): calls/s, p50, p99.
 * 2. server/discover for a user with 1,000 active skills: server time (Server-Timing) over 200
 *    sequential calls after 20 warm-up ones, and the instructions' size.
 * 3. The same `skills get` sequentially, 500 times: client-side p50 and p99, for context.
 * The discover user is a second account, so the 1,000 rows stay apart from the skills bench's 10,000.
 */
import { performance } from "node:perf_hooks";
import autocannon from "autocannon";
import postgres from "postgres";
import { mcpHeaders, REVISION } from "../src/helpers/mcp-http";
import type { ServerProcess } from "./server-process";

export { mcpHeaders };

export interface McpFigures {
  connections: number;
  getRps: number;
  getP50: number;
  getP99: number;
  getNon2xx: number;
  getErrors: number;
  seqP50: number;
  seqP99: number;
  discoverP50: number;
  discoverP99: number;
  activeSkills: number;
  instructionsChars: number;
  instructionsOk: boolean;
}

const CONNECTIONS = 50;
export const SKILL = "bench-skill";
export const MARKER = "Bench skill marker: check the diff before the tests.";
const ACTIVE_SKILLS = 1000;
const INSTRUCTIONS_BUDGET = 6000;

export const META = {
  "io.modelcontextprotocol/protocolVersion": REVISION,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "bench", version: "1" },
};

export const percentile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))] ?? 0;

const GET_BODY = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "tools/call",
  params: { name: "skills", arguments: { action: "get", name: SKILL }, _meta: META },
});
const DISCOVER_BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: META } });

interface RpcMessage {
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

/** The JSON-RPC answer, sent as JSON or as one SSE event. */
export async function rpcAnswer(res: Response): Promise<RpcMessage> {
  const raw = await res.text();
  if ((res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const data = raw
      .split("\n")
      .filter((l) => l.startsWith("data:"))
      .map((l) => l.slice(5).trim())
      .filter((l) => l.startsWith("{"));
    const last = data[data.length - 1];
    if (!last) throw new Error(`no JSON-RPC message in the event stream: ${raw.slice(0, 300)}`);
    return JSON.parse(last) as RpcMessage;
  }
  try {
    return JSON.parse(raw) as RpcMessage;
  } catch {
    throw new Error(`the MCP answer is neither JSON nor SSE (${res.status}): ${raw.slice(0, 300)}`);
  }
}

/** About 2 KB of Markdown that no credential rule mistakes for a secret. */
export function skillBody(): string {
  const paragraph =
    "Read the change as a whole first, then file by file. Note what the change claims to do, whether the tests " +
    "cover it, and what could break for the people who call this code. Prefer small, concrete suggestions.\n\n";
  let body = `# Bench skill\n\n${MARKER}\n\n`;
  while (body.length < 2000) body += paragraph;
  return body;
}

/** Creates the bench's skill through the REST API, with `send` (fetch, or a Worker's dispatch). */
export async function createBenchSkill(
  base: string,
  token: string,
  send: (url: string, init?: RequestInit) => Promise<Response> = fetch,
): Promise<void> {
  const created = await send(`${base}/v1/workspaces/me/skills`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({
      name: SKILL,
      description: "Reviews a change for the bench: use when measuring skills get.",
      instructions: skillBody(),
    }),
  });
  if (created.status !== 201) throw new Error(`creating ${SKILL} answered ${created.status}: ${await created.text()}`);
}

export async function signUpAndToken(url: string, email: string, scopes: string[]): Promise<string> {
  const signUp = await fetch(`${url}/v1/auth/signup`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "correct horse battery" }),
  });
  if (signUp.status !== 201) throw new Error(`sign-up failed: ${signUp.status} ${await signUp.text()}`);
  const cookies = signUp.headers.getSetCookie().map((c) => c.split(";")[0]);
  const csrf = cookies.find((c) => c?.startsWith("lo_csrf="))?.slice(8) ?? "";
  const created = await fetch(`${url}/v1/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json", cookie: cookies.join("; "), "x-csrf-token": csrf },
    body: JSON.stringify({ name: "bench-mcp", scopes }),
  });
  if (created.status !== 201) throw new Error(`token creation failed: ${created.status}`);
  return ((await created.json()) as { secret: string }).secret;
}

async function callGet(url: string, token: string): Promise<string> {
  const res = await fetch(`${url}/mcp`, {
    method: "POST",
    headers: mcpHeaders(token, "tools/call", "skills"),
    body: GET_BODY,
  });
  const answer = await rpcAnswer(res);
  if (res.status !== 200 || answer.error || answer.result?.isError)
    throw new Error(`skills get answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
  const content = answer.result?.content as { type: string; text?: string }[] | undefined;
  return content?.map((c) => c.text ?? "").join("") ?? "";
}

function loadGet(url: string, token: string, duration: number) {
  return autocannon({
    url: `${url}/mcp`,
    method: "POST",
    connections: CONNECTIONS,
    duration,
    headers: mcpHeaders(token, "tools/call", "skills"),
    body: GET_BODY,
  });
}

export async function benchMcp(
  server: ServerProcess,
  databaseUrl: string,
  token: string,
  durationS: number,
): Promise<McpFigures> {
  // 1. The skill, through the REST API, then one checked call before any load.
  await createBenchSkill(server.url, token);
  const text = await callGet(server.url, token);
  if (!text.includes(MARKER) || text.length < 2000)
    throw new Error(`skills get did not return the skill's text: ${text.slice(0, 300)}`);

  await loadGet(server.url, token, 2);
  const result = await loadGet(server.url, token, durationS);
  // Still answering correctly after the load (a 200 can carry a tool error).
  if (!(await callGet(server.url, token)).includes(MARKER)) throw new Error("skills get failed after the load");

  // 3. Sequential, client-side.
  const sequential: number[] = [];
  for (let i = 0; i < 550; i++) {
    const start = performance.now();
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(token, "tools/call", "skills"),
      body: GET_BODY,
    });
    await res.arrayBuffer();
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`sequential skills get answered ${res.status}`);
    if (i >= 50) sequential.push(ms);
  }

  // 2. A second account whose personal workspace holds exactly 1,000 active skills.
  const discoverToken = await signUpAndToken(server.url, "bench-mcp@example.com", ["mcp", "skills:read"]);
  const me = (await (
    await fetch(`${server.url}/v1/workspaces/me`, { headers: { authorization: `Bearer ${discoverToken}` } })
  ).json()) as { id: string };
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    await sql`
      insert into skills (id, workspace_id, kind, name, description, file_count, total_bytes)
      select 'skl_mcpbench' || lpad(g::text, 5, '0'), ${me.id}, 'skill', 'mcp-skill-' || lpad(g::text, 4, '0'),
             'MCP bench skill number ' || g || ': reviews, drafts and checks things for the agent when asked.', 1, 200
      from generate_series(1, ${ACTIVE_SKILLS}) g`;
    await sql`analyze skills`;
  } finally {
    await sql.end();
  }

  const timings: number[] = [];
  let instructions = "";
  for (let i = 0; i < 220; i++) {
    const res = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: mcpHeaders(discoverToken, "server/discover"),
      body: DISCOVER_BODY,
    });
    const answer = await rpcAnswer(res);
    if (res.status !== 200 || answer.error)
      throw new Error(`server/discover answered ${res.status}: ${JSON.stringify(answer).slice(0, 300)}`);
    const dur = Number(/dur=([\d.]+)/.exec(res.headers.get("server-timing") ?? "")?.[1]);
    if (!Number.isFinite(dur)) throw new Error("server/discover has no Server-Timing header");
    if (i === 0) instructions = String(answer.result?.instructions ?? "");
    if (i >= 20) timings.push(dur);
  }
  const instructionsChars = [...instructions].length;
  const instructionsOk =
    instructions.includes("skills(action=") &&
    instructions.includes("mcp-skill-0001") &&
    instructions.includes("more") &&
    instructionsChars <= INSTRUCTIONS_BUDGET;

  return {
    connections: CONNECTIONS,
    getRps: Math.round(result.requests.average),
    getP50: result.latency.p50,
    getP99: result.latency.p99,
    getNon2xx: result.non2xx,
    getErrors: result.errors + result.timeouts,
    seqP50: percentile(sequential, 0.5),
    seqP99: percentile(sequential, 0.99),
    discoverP50: percentile(timings, 0.5),
    discoverP99: percentile(timings, 0.99),
    activeSkills: ACTIVE_SKILLS,
    instructionsChars,
    instructionsOk,
  };
}

/** The section `npm run bench` prints. */
export function printMcp(m: McpFigures): void {
  const x = (v: number) => v.toFixed(2);
  const label = (s: string) => s.padEnd(49);
  console.log(`\n${label(`MCP (Postgres, ${REVISION}, API token)`)}measured     target`);
  console.log(
    `${label(`tools/call skills get, ${m.connections} conns`)}${String(m.getRps).padStart(6)}/s      ≥ 3000/s (${x(m.getRps / 3000)}×)   p50 ${m.getP50} ms  p99 ${m.getP99} ms (≤ 25 ms${m.getP99 <= 25 ? "" : ", OVER"})   non-2xx ${m.getNon2xx}, errors ${m.getErrors}`,
  );
  console.log(
    `${label("server/discover, 1,000 active skills, p50 server")}${x(m.discoverP50).padStart(6)} ms     ≤ 5 ms (${x(m.discoverP50 / 5)}×)     p99 ${x(m.discoverP99)} ms   instructions ${m.instructionsChars} chars (≤ ${INSTRUCTIONS_BUDGET}): ${m.instructionsOk ? "ok" : "NOT OK"}`,
  );
  console.log(
    `${label("tools/call skills get, sequential ×500, client")}${x(m.seqP50).padStart(6)} ms     (context)          p99 ${x(m.seqP99)} ms`,
  );
}

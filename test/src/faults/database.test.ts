/**
 * Database faults (issue 21, DESIGN.md "Failure behaviour"): Loadout on a Postgres cluster of the
 * test's own, under concurrent REST writers and MCP clients, while the cluster is stopped (fast,
 * then immediate) and started again. The process must live, every surface must answer
 * `unavailable` in its own shape at once, /healthz must say 503 within a second, service must
 * resume within 5 s of the database's return without a restart, and every acknowledged write must
 * be there afterwards, whole.
 */
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { mcpHeaders, REVISION } from "../helpers/mcp-http";
import { type Cluster, postgresBin, startCluster } from "./cluster";
import { type LoadoutProcess, startLoadoutProcess } from "./loadout-process";

const bin = postgresBin();
if (!bin) console.warn("Database faults: skipped, initdb is not installed (apt-get install postgresql).");

const WRITERS = 3;
const OUTAGE_MS = 3000;
const RECOVERY_BOUND_MS = 5000;
const HEALTH_BOUND_MS = 1000;
/** An answer during the outage comes "at once": well before any connect timeout of the driver. */
const ANSWER_BOUND_MS = 2500;

interface Answer {
  surface: "rest" | "mcp";
  status: number;
  /** The error code the answer carries, in its surface's shape, or why it has none. */
  code: string;
}

/** The error code of a REST answer, or what is wrong with its shape. */
function restCode(body: unknown): string {
  const error = (body as { error?: { code?: unknown; message?: unknown; requestId?: unknown } } | null)?.error;
  if (typeof error?.code !== "string" || typeof error.message !== "string" || typeof error.requestId !== "string")
    return `not the REST error shape: ${JSON.stringify(body).slice(0, 200)}`;
  return error.code;
}

/** The error code of a JSON-RPC answer from /mcp, or what is wrong with its shape. */
function rpcCode(text: string): string {
  try {
    const body = JSON.parse(text) as { jsonrpc?: unknown; error?: { code?: unknown; data?: { code?: unknown } } };
    if (body.jsonrpc !== "2.0" || typeof body.error?.code !== "number" || typeof body.error.data?.code !== "string")
      return `not a JSON-RPC error: ${text.slice(0, 200)}`;
    if (body.error.data.code === "unavailable" && body.error.code !== -32050)
      return `unavailable with JSON-RPC code ${body.error.code}`;
    return body.error.data.code;
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
}

/** The errors Loadout logged besides its request lines, for a failure's message (JSON, one a line). */
function errorLines(output: string): string {
  return output
    .split("\n")
    .filter((line) => line.includes('"level":"error"') && !line.includes('"msg":"request"'))
    .slice(-20)
    .join("\n");
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(!bin)("Database faults", () => {
  let cluster: Cluster;
  let app: LoadoutProcess;
  let account: Account;
  let token: string;
  const clients: Client[] = [];

  beforeAll(async () => {
    cluster = await startCluster(bin ?? "");
    app = await startLoadoutProcess({ DATABASE_URL: cluster.url, LOADOUT_LOG: "json" });
    account = await signUpAccount(app.url, "faults@example.com");
    token = (await account.token(["mcp", "skills:read", "skills:write"])).secret;
    // One workspace per writer: writers on one workspace contending is another suite's concern.
    for (let w = 0; w < WRITERS; w++) {
      const made = await account.rest("/v1/workspaces", { method: "POST", body: { slug: `team-${w}`, name: `T${w}` } });
      expect(made.status).toBe(201);
    }
    const seeded = await rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: { name: "seed", description: "Read by the MCP clients.", instructions: "# Seed\n\nRead me.\n" },
    });
    expect(seeded.status).toBe(201);
    for (const options of [{}, { versionNegotiation: { mode: "auto" as const } }]) {
      const client = new Client({ name: "faults", version: "1" }, options);
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${token}` } },
        }),
      );
      clients.push(client);
    }
  }, 90_000);

  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => {});
    await app?.stop();
    cluster?.destroy();
  });

  /** A fetch to Loadout; when it cannot connect, whether the process has ended says why. */
  async function send(path: string, init: RequestInit): Promise<Response> {
    try {
      return await fetch(`${app.url}${path}`, init);
    } catch (error) {
      await sleep(200);
      const exit = app.exited();
      if (exit) throw new Error(`Loadout ended (${JSON.stringify(exit)}):\n${app.output().slice(-2000)}`);
      throw error;
    }
  }

  async function rest(path: string, init: { method?: string; body?: unknown } = {}) {
    const res = await send(path, {
      method: init.method ?? "GET",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
    });
    const text = await res.text();
    let body: unknown = null;
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
    return { status: res.status, body, headers: res.headers };
  }

  /** A 2026-07-28 tools/call sent by hand, to read the answer's exact shape. */
  async function rawMcpGet(): Promise<{ status: number; text: string; ms: number }> {
    const started = performance.now();
    const res = await send("/mcp", {
      method: "POST",
      headers: mcpHeaders(token, "tools/call", "skills"),
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: {
          name: "skills",
          arguments: { action: "get", name: "seed" },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": REVISION,
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    });
    const text = await res.text();
    return { status: res.status, text, ms: performance.now() - started };
  }

  async function health(): Promise<{ status: number; ms: number }> {
    const started = performance.now();
    const res = await send("/healthz", {});
    await res.text();
    return { status: res.status, ms: performance.now() - started };
  }

  /** Writers and MCP loops until `stop`; what they were told, and what was acknowledged. */
  function load() {
    let running = true;
    const acknowledged = new Map<string, number>();
    const failures: Answer[] = [];
    const thrown: string[] = [];
    let served = 0;
    const writer = async (w: number) => {
      for (let n = 0; running; n++) {
        const name = `w${w}-${n}-${Math.random().toString(36).slice(2, 6)}`;
        const base = `/v1/workspaces/team-${w}/skills`;
        try {
          const created = await rest(base, {
            method: "POST",
            body: { name, description: "Written during the faults test.", instructions: `# ${name}\n` },
          });
          if (created.status !== 201) {
            failures.push({ surface: "rest", status: created.status, code: restCode(created.body) });
            await sleep(50);
            continue;
          }
          acknowledged.set(`team-${w}/${name}`, (created.body as { revision: number }).revision);
          const edited = await rest(`${base}/${name}`, {
            method: "PATCH",
            body: { revision: 1, description: "Edited during the faults test." },
          });
          if (edited.status === 200)
            acknowledged.set(`team-${w}/${name}`, (edited.body as { revision: number }).revision);
          else failures.push({ surface: "rest", status: edited.status, code: restCode(edited.body) });
        } catch (error) {
          thrown.push(`writer: ${String(error)}`);
          await sleep(50);
        }
      }
    };
    const reader = async (client: Client) => {
      while (running) {
        try {
          const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "seed" } });
          const text = JSON.stringify(got.content);
          if (got.isError || !text.includes("Read me.")) {
            failures.push({ surface: "mcp", status: 200, code: `a tool result, not an error: ${text.slice(0, 200)}` });
          } else served++;
        } catch (error) {
          // The SDK's HTTP error keeps the answer's status and body.
          const { status, text } = (error as { data?: { status?: unknown; text?: unknown } }).data ?? {};
          if (typeof status === "number" && typeof text === "string")
            failures.push({ surface: "mcp", status, code: rpcCode(text) });
          else thrown.push(`mcp: ${String(error)}`);
          await sleep(50);
        }
      }
    };
    const tasks = [...Array.from({ length: WRITERS }, (_, w) => writer(w)), ...clients.map((c) => reader(c))];
    return {
      acknowledged,
      failures,
      thrown,
      served: () => served,
      async stop() {
        running = false;
        await Promise.all(tasks);
      },
    };
  }

  it.each(["fast", "immediate"] as const)(
    "lives through a %s stop: unavailable at once, back within 5 s, nothing acknowledged lost",
    async (mode) => {
      const running = load();
      await sleep(1500);
      const servedBefore = running.served();
      const acknowledgedBefore = running.acknowledged.size;
      expect(servedBefore, "MCP calls served before the outage").toBeGreaterThan(0);
      expect(acknowledgedBefore, "writes acknowledged before the outage").toBeGreaterThan(0);

      cluster.stop(mode);
      const down = Date.now();
      const healthChecks: { status: number; ms: number }[] = [];
      const probes: Answer[] = [];
      const probeMs: number[] = [];
      // The first answers may still come from connections that had not yet noticed.
      await sleep(300);
      while (Date.now() - down < OUTAGE_MS) {
        healthChecks.push(await health());
        const started = performance.now();
        const listed = await rest("/v1/workspaces/me/skills");
        probeMs.push(performance.now() - started);
        probes.push({ surface: "rest", status: listed.status, code: restCode(listed.body) });
        const raw = await rawMcpGet();
        probeMs.push(raw.ms);
        probes.push({ surface: "mcp", status: raw.status, code: rpcCode(raw.text) });
        await sleep(100);
      }
      expect(app.exited(), `the process ended:\n${app.output().slice(-3000)}`).toBeUndefined();
      expect(healthChecks.every((h) => h.status === 503)).toBe(true);
      expect(Math.max(...healthChecks.map((h) => h.ms))).toBeLessThan(HEALTH_BOUND_MS);
      expect(probes).toEqual(probes.map((p) => ({ ...p, status: 503, code: "unavailable" })));
      expect(Math.max(...probeMs)).toBeLessThan(ANSWER_BOUND_MS);

      cluster.start();
      const up = Date.now();
      let recoveredMs: number | null = null;
      while (Date.now() - up < RECOVERY_BOUND_MS + 2000) {
        const [h, listed, raw] = await Promise.all([health(), rest("/v1/workspaces/me/skills"), rawMcpGet()]);
        if (h.status === 200 && listed.status === 200 && raw.status === 200 && raw.text.includes("Read me.")) {
          recoveredMs = Date.now() - up;
          break;
        }
        await sleep(100);
      }
      console.log(`Database faults (${mode} stop): served again ${recoveredMs} ms after the database returned`);
      expect(recoveredMs, "served again after the database returned").not.toBeNull();
      expect(recoveredMs ?? Number.POSITIVE_INFINITY).toBeLessThan(RECOVERY_BOUND_MS);
      // The loops go on over the recovered database (on a loaded machine a write can take a while).
      const writesBack = running.acknowledged.size;
      const servedBack = running.served();
      await expect
        .poll(() => running.acknowledged.size, { timeout: 10_000, message: "writes acknowledged after the outage" })
        .toBeGreaterThan(writesBack);
      await expect
        .poll(() => running.served(), { timeout: 10_000, message: "MCP calls served after the outage" })
        .toBeGreaterThan(servedBack);
      await running.stop();

      // Every failure the load saw was an `unavailable` in its surface's shape; nothing broke a connection.
      expect(running.thrown).toEqual([]);
      expect(running.failures, `what Loadout logged as errors:\n${errorLines(app.output())}`).toEqual(
        running.failures.map((f) => ({ ...f, status: 503, code: "unavailable" })),
      );
      expect(app.exited()).toBeUndefined();

      // Every acknowledged write is there with (at least) its revision: a write whose answer was
      // lost with the connection may have committed as well.
      for (const [key, revision] of running.acknowledged) {
        const [ws, name] = key.split("/");
        const read = await rest(`/v1/workspaces/${ws}/skills/${name}`);
        expect(read.status, key).toBe(200);
        expect((read.body as { revision: number }).revision, key).toBeGreaterThanOrEqual(revision);
      }
      // Nothing half-applied: each skill has every content version, its files, and one audit
      // event per version (created, then one per update), whatever was acknowledged.
      const sql = postgres(cluster.url, { max: 1, onnotice: () => {} });
      try {
        const broken = await sql`
          select s.name, s.version,
            (select count(*)::int from skill_versions v where v.skill_id = s.id) as versions,
            (select count(*)::int from skill_versions v where v.skill_id = s.id
               and not exists (select 1 from skill_version_files f where f.version_id = v.id)) as empty_versions,
            (select count(*)::int from audit_events e where e.target_id = s.id
               and (e.action like '%.created' or e.action like '%.updated')) as events
          from skills s
          where (select count(*) from skill_versions v where v.skill_id = s.id) <> s.version
             or exists (select 1 from skill_versions v where v.skill_id = s.id
               and not exists (select 1 from skill_version_files f where f.version_id = v.id))
             or (select count(*) from audit_events e where e.target_id = s.id
               and (e.action like '%.created' or e.action like '%.updated')) <> s.version`;
        expect(broken).toEqual([]);
      } finally {
        await sql.end({ timeout: 5 });
      }
    },
    60_000,
  );
});

import { createHash, randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { migratePostgresDatabase } from "@loadout/db/open";
import { withDatabase } from "@loadout/db/testing";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { BlobWriter, TextReader, ZipWriter } from "@zip.js/zip.js";
import { Miniflare, type RequestInit as WorkerRequestInit } from "miniflare";
import postgres from "postgres";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Account, addApprovedServer, type Send, signUpAccount } from "../helpers/account";
import { callCase, differences, type Era, PARITY_CASES, prepareParityAccount } from "../helpers/mcp-parity";
import { startEverything } from "../helpers/upstream";
import { type StatelessUpstream, startMisbehavingUpstream, startStatelessUpstream } from "../helpers/upstreams";
import { type BuiltWorker, buildWorker, isOurs, OURS, sourceWithoutComments } from "./bundle-build";
import { assetsOptions, buildWorkerIfStale, disposeAfterDatabase, proxyScriptPath } from "./harness";

/**
 * The built Worker (api/dist/worker/worker.js) running in workerd through Miniflare, on a fresh
 * Postgres database: the Worker cannot use PGlite, so this file always needs the local Postgres.
 */

const root = fileURLToPath(new URL("../../../", import.meta.url));
const outDir = path.join(root, "api/dist/worker");
const scriptPath = path.join(outDir, "worker.js");
/** The proxy Worker (infra/wrangler.proxy.jsonc), built beside it. */
const wranglerConfig = readFileSync(path.join(root, "infra/wrangler.jsonc"), "utf8");
const compatibilityDate = /"compatibility_date"\s*:\s*"([^"]+)"/.exec(wranglerConfig)?.[1] ?? "";
const compatibilityFlags = JSON.parse(/"compatibility_flags"\s*:\s*(\[[^\]]*\])/.exec(wranglerConfig)?.[1] ?? "[]");
const secretKey = "worker-test-secret-key-0123456789abcdef";
const password = "correct horse battery";

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

/**
 * Test-only entry in front of the real Worker. Cloudflare's production runtime refuses PBKDF2
 * above 100,000 iterations (NotSupportedError) while local workerd does not (workerd#1346), so
 * this entry adds the same refusal; `/__test/pbkdf2-probe` proves the refusal is in force.
 */
const productionCapEntry = `
import worker from "./worker.js";

const subtle = crypto.subtle;
const deriveBits = subtle.deriveBits.bind(subtle);
const deriveKey = subtle.deriveKey.bind(subtle);
function refuseLikeProduction(algorithm) {
  const name = typeof algorithm === "string" ? algorithm : algorithm?.name;
  if (String(name).toUpperCase() === "PBKDF2" && !(algorithm.iterations <= 100000)) {
    throw new DOMException("PBKDF2 above 100000 iterations is not supported (" + algorithm.iterations + ")", "NotSupportedError");
  }
}
subtle.deriveBits = (algorithm, ...rest) => { refuseLikeProduction(algorithm); return deriveBits(algorithm, ...rest); };
subtle.deriveKey = (algorithm, ...rest) => { refuseLikeProduction(algorithm); return deriveKey(algorithm, ...rest); };

async function probe(iterations) {
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode("probe"), "PBKDF2", false, ["deriveBits"]);
  try {
    await crypto.subtle.deriveBits({ name: "PBKDF2", hash: "SHA-256", salt: new Uint8Array(16), iterations }, key, 256);
    return { ok: true };
  } catch (error) {
    return { ok: false, name: error.name };
  }
}

export { ToolsChanged } from "./worker.js";

export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.pathname === "/__test/pbkdf2-probe") return Response.json(await probe(Number(url.searchParams.get("iterations"))));
    return worker.fetch(request, env, ctx);
  },
};
`;

/** Hyperdrive's local binding insists on a password; trust authentication ignores it. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = "unused";
  return parsed.toString();
}

interface RunningWorker {
  mf: Miniflare;
  /** What the Worker wrote to its console, kept out of the test output unless a test fails. */
  logs: string[];
}

/** How long an upstream session object stays unused before its alarm closes it, in these tests. */
const PROXY_IDLE_MS = 1_500;

interface WorkerOptions {
  bindings: Record<string, string>;
  hyperdrive?: string;
  /**
   * Runs the proxy Worker beside the api Worker, as production does: its UpstreamProxy entrypoint
   * bound to the api's UPSTREAM, its Durable Objects, and its binding back to ToolsChanged.
   */
  proxy?: boolean;
}

function startWorker(options: WorkerOptions): RunningWorker {
  const logs: string[] = [];
  const api = {
    name: "loadout",
    modules: [
      { type: "ESModule" as const, path: path.join(outDir, "production-cap-entry.js"), contents: productionCapEntry },
      { type: "ESModule" as const, path: scriptPath },
    ],
    modulesRoot: outDir,
    compatibilityDate,
    compatibilityFlags,
    ...(options.hyperdrive ? { hyperdrives: { HYPERDRIVE: withPassword(options.hyperdrive) } } : {}),
    bindings: options.proxy ? { ...options.bindings, LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" } : options.bindings,
    ...(options.proxy ? { serviceBindings: { UPSTREAM: { name: "loadout-proxy", entrypoint: "UpstreamProxy" } } } : {}),
    ...assetsOptions(),
  };
  const proxy = {
    name: "loadout-proxy",
    modules: true,
    scriptPath: proxyScriptPath,
    // Module paths are taken relative to this, not to the working directory (a `..` in them is refused).
    modulesRoot: path.dirname(proxyScriptPath),
    compatibilityDate,
    compatibilityFlags: ["nodejs_compat"],
    durableObjects: { SESSIONS: "UpstreamSessions" },
    bindings: { LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", LOADOUT_UPSTREAM_IDLE_MS: String(PROXY_IDLE_MS) },
    serviceBindings: { LOADOUT_API: { name: "loadout", entrypoint: "ToolsChanged" } },
  };
  const mf = new Miniflare({
    workers: options.proxy ? [api, proxy] : [api],
    // No request.cf data: Miniflare would otherwise download it.
    cf: false,
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      logs.push(`${level}: ${message}`);
    },
  });
  return { mf, logs };
}

const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const databaseName = `loadout_w_${randomBytes(6).toString("hex")}`;
const databaseUrl = withDatabase(base, databaseName);
const admin = postgres(base, { max: 1, onnotice: () => {} });
let created = false;
let running: RunningWorker | undefined;

beforeAll(async () => {
  buildWorkerIfStale();
  await admin.unsafe(`create database "${databaseName}"`);
  created = true;
  await migratePostgresDatabase(databaseUrl);
  running = startWorker({
    hyperdrive: databaseUrl,
    bindings: { LOADOUT_SECRET_KEY: secretKey, LOADOUT_INSECURE_COOKIES: "1" },
    proxy: true,
  });
  await running.mf.ready;
});

beforeEach(({ onTestFailed }) => {
  const from = running?.logs.length ?? 0;
  onTestFailed(() => console.log(`Worker console:\n${running?.logs.slice(from).join("\n")}`));
});

afterAll(async () => {
  await disposeAfterDatabase(
    running?.mf,
    async () => {
      if (created) await admin.unsafe(`drop database if exists "${databaseName}" with (force)`);
    },
    databaseUrl,
  );
  await admin.end({ timeout: 5 });
});

function worker(): Miniflare {
  if (!running) throw new Error("the Worker did not start");
  return running.mf;
}

async function fetchJson(url: string, init: WorkerRequestInit = {}) {
  const res = await worker().dispatchFetch(`http://loadout.test${url}`, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null, text };
}

function postJson(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetchJson(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
}

const bearer = (secret: string) => ({ headers: { authorization: `Bearer ${secret}` } });

async function signUpWithToken(email: string) {
  const signUp = await postJson("/v1/auth/signup", { email, password, name: "Worker Test" });
  expect(signUp.status, signUp.text).toBe(201);
  const cookies = signUp.headers.getSetCookie();
  const cookie = cookies.map((c) => c.split(";")[0] ?? "").join("; ");
  const created = await postJson(
    "/v1/tokens",
    { name: "worker test", scopes: ["mcp", "admin", "skills:read", "skills:write"], expiresInDays: 1 },
    { cookie, "x-csrf-token": signUp.body.csrfToken },
  );
  expect(created.status, created.text).toBe(201);
  return { signUp, cookies, token: created.body.token as { id: string }, secret: created.body.secret as string };
}

describe("the built Worker in workerd", () => {
  it("answers /healthz with 200 ok after reaching the database", async () => {
    const res = await fetchJson("/healthz");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });

  it("signs up, creates a token, serves /v1/me with it, and refuses it once revoked", async () => {
    const { signUp, cookies, token, secret } = await signUpWithToken("ada@worker.example");
    expect(signUp.body.user).toMatchObject({ email: "ada@worker.example", name: "Worker Test" });
    expect(signUp.body.csrfToken).toEqual(expect.any(String));
    const session = cookies.find((c) => c.startsWith("lo_session="));
    expect(session).toMatch(/HttpOnly/i);
    expect(session).not.toMatch(/Secure/i);
    expect(cookies.some((c) => c.startsWith("lo_csrf="))).toBe(true);
    expect(token.id).toMatch(/^tok_/);
    expect(secret).toMatch(/^lo_/);

    const me = await fetchJson("/v1/me", bearer(secret));
    expect(me.status, me.text).toBe(200);
    expect(me.body.user).toMatchObject({ email: "ada@worker.example" });
    expect(me.body.workspaces).toHaveLength(1);
    expect(me.body.principal.kind).toBe("token");

    const revoked = await fetchJson(`/v1/tokens/${token.id}`, { method: "DELETE", ...bearer(secret) });
    expect(revoked.status, revoked.text).toBe(204);

    const refused = await fetchJson("/v1/me", bearer(secret));
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatchObject({ code: "unauthorized", requestId: expect.any(String) });
    expect(refused.body.error.message).toEqual(expect.any(String));
  });

  it("imports a skill archive, refuses a credential, and edits a skill (zip, YAML and secret rules run in workerd)", async () => {
    const { secret } = await signUpWithToken("linus@worker.example");
    const writer = new ZipWriter(new BlobWriter("application/zip"));
    await writer.add(
      "zipped/SKILL.md",
      new TextReader("---\nname: zipped\ndescription: Imported in workerd.\n# a comment\n---\nBody\n"),
    );
    await writer.add("zipped/references/deep/a.md", new TextReader("A".repeat(5000)));
    const archive = new Uint8Array(await (await writer.close()).arrayBuffer());
    const imported = await fetchJson("/v1/workspaces/me/skills/import", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/zip" },
      body: archive,
    });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.body.files.map((f: { path: string }) => f.path)).toEqual(["SKILL.md", "references/deep/a.md"]);

    const leaked = `sk-ant-api03-${"Ab3dE5gH7jK9mN1pQ3sT5vW7yZ9bC1eF3hJ5kL7nP9rS1tV3xZ5aC7eG9iK1mO3qS5uW7yA9cE1gI3kM5oQ7s"}AA`;
    const refused = await fetchJson("/v1/workspaces/me/skills", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "leaky", description: "x", instructions: `Use ${leaked} here.` }),
    });
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error.details[0]).toMatchObject({ path: "SKILL.md" });
    expect(refused.text).not.toContain(leaked);

    const edited = await fetchJson("/v1/workspaces/me/skills/zipped", {
      method: "PATCH",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({ revision: 1, description: "Edited in workerd." }),
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.body.document).toContain("# a comment");
    expect(edited.body.version).toBe(2);
  });

  it("serves the MCP endpoint in workerd to the SDK client, on the stateless revision", async () => {
    const { secret } = await signUpWithToken("mcp@worker.example");
    const created = await fetchJson("/v1/workspaces/me/skills", {
      method: "POST",
      headers: { authorization: `Bearer ${secret}`, "content-type": "application/json" },
      body: JSON.stringify({
        name: "edge-skill",
        description: "Served from workerd.",
        instructions: "Hello from the edge.",
      }),
    });
    expect(created.status, created.text).toBe(201);
    const client = new Client({ name: "workerd-test", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    const transport = new StreamableHTTPClientTransport(new URL("http://loadout.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      fetch: (url, init) =>
        worker().dispatchFetch(String(url), init as WorkerRequestInit) as unknown as Promise<Response>,
    });
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe("modern");
      expect(client.getInstructions()).toContain("- edge-skill: Served from workerd.");
      const got = await client.callTool({ name: "skills", arguments: { action: "get", name: "edge-skill" } });
      expect((got.content as { text: string }[])[0]?.text).toContain("Hello from the edge.");
      // No change feed on Workers: a listen stream reads its own counters while it is open (on
      // Node the change feed tells it; list-changed.test.ts), and hears the next save.
      expect(client.getServerCapabilities()?.tools?.listChanged).toBe(true);
      const heard: string[] = [];
      client.setNotificationHandler("notifications/tools/list_changed", () => {
        heard.push("tools");
      });
      const listening = await client.listen({ toolsListChanged: true });
      expect(listening.honoredFilter).toMatchObject({ toolsListChanged: true });
      await new Promise((r) => setTimeout(r, 500));
      expect(heard).toEqual([]);
      const saved = await postJson(
        "/v1/workspaces/me/skills",
        { name: "edge-skill-2", description: "Saved while listening.", instructions: "Heard?" },
        { authorization: `Bearer ${secret}` },
      );
      expect(saved.status, saved.text).toBe(201);
      await expect.poll(() => heard, { timeout: 10_000 }).toEqual(["tools"]);
      await listening.close();
    } finally {
      await client.close();
    }
  });

  it("serves warm MCP calls from the isolate's caches, current with every change its counters say was committed", async () => {
    const { secret, token, signUp, cookies } = await signUpWithToken("stamped@worker.example");
    const created = await postJson(
      "/v1/workspaces/me/skills",
      { name: "stamped", description: "First words.", instructions: "Stamped." },
      { authorization: `Bearer ${secret}` },
    );
    expect(created.status, created.text).toBe(201);
    const client = new Client({ name: "workerd-stamps", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL("http://loadout.test/mcp"), {
        requestInit: { headers: { authorization: `Bearer ${secret}` } },
        fetch: (url, init) =>
          worker().dispatchFetch(String(url), init as WorkerRequestInit) as unknown as Promise<Response>,
      }),
    );
    const listed = async () =>
      JSON.stringify((await client.callTool({ name: "skills", arguments: { action: "list" } })).content);
    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      // Warm: the principal and the catalog are cached under this user's and workspace's counters.
      for (let i = 0; i < 3; i++) expect(await listed()).toContain("First words.");
      // A change written with the triggers off moves no counter: what the isolate holds is still served,
      // which shows the warm call did not read the skill again.
      await db.begin(async (tx) => {
        await tx`set local session_replication_role = replica`;
        await tx`update skills set description = 'Written behind the counters.' where name = 'stamped'`;
      });
      expect(await listed()).toContain("First words.");
      // Any committed change through the triggers (here hand-written SQL) is seen on the very next call.
      await db`update skills set description = 'Second words.' where name = 'stamped'`;
      expect(await listed()).toContain("Second words.");
      // A revoked token is refused on its next call, though its principal was cached.
      const revoked = await fetchJson(`/v1/tokens/${token.id}`, {
        method: "DELETE",
        headers: {
          cookie: cookies.map((c) => c.split(";")[0] ?? "").join("; "),
          "x-csrf-token": signUp.body.csrfToken,
        },
      });
      expect(revoked.status, revoked.text).toBeLessThan(300);
      await expect(listed()).rejects.toThrow(/401|nauthorized|invalid/i);
    } finally {
      await db.end({ timeout: 5 });
      await client.close().catch(() => {});
    }
  });

  it("serves a 2025-era client in workerd as on Node: its session id names it, its calls take the fast lane", async () => {
    const { secret } = await signUpWithToken("legacy@worker.example");
    const seen: { method: string; sessionId: string | null; lane: string | undefined; type: string | null }[] = [];
    const client = new Client({ name: "workerd-2025", version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL("http://loadout.test/mcp"), {
      requestInit: { headers: { authorization: `Bearer ${secret}` } },
      fetch: async (url, init) => {
        const res = (await worker().dispatchFetch(String(url), init as WorkerRequestInit)) as unknown as Response;
        seen.push({
          method: init?.method ?? "GET",
          sessionId: res.headers.get("mcp-session-id"),
          lane: /lane;desc="(\w+)"/.exec(res.headers.get("server-timing") ?? "")?.[1],
          type: res.headers.get("content-type"),
        });
        return res;
      },
    });
    await client.connect(transport);
    try {
      expect(client.getProtocolEra()).toBe("legacy");
      // The initialize answer carries Loadout's signed session id (see api/src/mcp/legacy-session.ts).
      expect(seen[0]?.sessionId).toMatch(/^lo1\./);
      const listed = await client.callTool({ name: "skills", arguments: { action: "list" } });
      expect(listed.isError).toBeFalsy();
      // One JSON body, where the SDK's 2025 transport would stream one event (api/src/mcp/encode.ts).
      // The last POST's: the client's GET stream, opened unawaited after its handshake, may answer later.
      expect(seen.filter((s) => s.method === "POST").at(-1)).toMatchObject({ lane: "fast", type: "application/json" });
    } finally {
      await client.close();
    }
  });

  it("runs the OAuth flow in workerd: register, authorize, consent, token, /mcp, refresh", async () => {
    const { signUp, cookies } = await signUpWithToken("oauth@worker.example");
    const session = {
      cookie: cookies.map((c) => c.split(";")[0] ?? "").join("; "),
      "x-csrf-token": signUp.body.csrfToken,
    };
    const meta = await fetchJson("/.well-known/oauth-authorization-server");
    // Miniflare's loopback hop sets Host, so the issuer is the address it listens on.
    const issuer = String(meta.body.issuer);
    expect(meta.body).toMatchObject({
      token_endpoint: `${issuer}/oauth/token`,
      code_challenge_methods_supported: ["S256"],
    });
    // The SSRF guard resolves over DNS over HTTPS (test/src/worker/edge.test.ts fetches a document).
    expect(meta.body.client_id_metadata_document_supported).toBe(true);
    const callback = "https://claude.ai/api/mcp/auth_callback";
    const client = await postJson("/oauth/register", { client_name: "Claude", redirect_uris: [callback] });
    expect(client.status, client.text).toBe(201);
    const verifier = randomBytes(32).toString("base64url");
    const authorize = await worker().dispatchFetch(
      `http://loadout.test/oauth/authorize?${new URLSearchParams({
        response_type: "code",
        client_id: client.body.client_id,
        redirect_uri: callback,
        state: "edge",
        code_challenge: createHash("sha256").update(verifier).digest("base64url"),
        code_challenge_method: "S256",
        resource: `${issuer}/mcp`,
      })}`,
      { redirect: "manual" },
    );
    expect(authorize.status).toBe(302);
    const request = new URL(authorize.headers.get("location") ?? "", "http://loadout.test").searchParams.get("request");
    // Answered in the browser that started it: with the cookie /oauth/authorize set there.
    const binding = authorize.headers
      .getSetCookie()
      .find((c) => c.startsWith("lo_oauth_browser="))
      ?.split(";")[0];
    const decided = await postJson(
      `/v1/oauth/requests/${request}/decision`,
      { approve: true },
      { ...session, cookie: `${session.cookie}; ${binding}` },
    );
    expect(decided.status, decided.text).toBe(200);
    const code = new URL(decided.body.redirectTo).searchParams.get("code") ?? "";
    const form = (fields: Record<string, string>) => ({
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(fields).toString(),
    });
    const issued = await fetchJson(
      "/oauth/token",
      form({
        grant_type: "authorization_code",
        code,
        redirect_uri: callback,
        client_id: client.body.client_id,
        code_verifier: verifier,
      }),
    );
    expect(issued.status, issued.text).toBe(200);
    const mcp = new Client({ name: "claude-ai", version: "1.0.0" }, { versionNegotiation: { mode: "auto" } });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL("http://loadout.test/mcp"), {
        requestInit: { headers: { authorization: `Bearer ${issued.body.access_token}` } },
        fetch: (url, init) =>
          worker().dispatchFetch(String(url), init as WorkerRequestInit) as unknown as Promise<Response>,
      }),
    );
    try {
      const listed = await mcp.callTool({ name: "skills", arguments: { action: "list" } });
      expect(listed.isError).toBeFalsy();
    } finally {
      await mcp.close();
    }
    const refreshed = await fetchJson(
      "/oauth/token",
      form({ grant_type: "refresh_token", refresh_token: issued.body.refresh_token, client_id: client.body.client_id }),
    );
    expect(refreshed.status, refreshed.text).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(issued.body.refresh_token);
  });

  it("serves requests back to back and in parallel (no I/O object crosses requests)", async () => {
    const { secret } = await signUpWithToken("grace@worker.example");
    for (let i = 0; i < 3; i++) {
      const me = await fetchJson("/v1/me", bearer(secret));
      expect(me.status, me.text).toBe(200);
      expect(me.body.user.email).toBe("grace@worker.example");
    }
    const parallel = await Promise.all([
      ...Array.from({ length: 5 }, () => fetchJson("/v1/me", bearer(secret))),
      ...Array.from({ length: 3 }, () => fetchJson("/healthz")),
    ]);
    expect(parallel.map((r) => r.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
    expect(parallel.slice(0, 5).map((r) => r.body.user.email)).toEqual(Array(5).fill("grace@worker.example"));
  });
});

describe("password hashing on the Worker (PBKDF2 is capped at 100,000 iterations in production)", () => {
  it("the test entry refuses PBKDF2 above the cap, as production does", async () => {
    expect((await fetchJson("/__test/pbkdf2-probe?iterations=100000")).body).toEqual({ ok: true });
    expect((await fetchJson("/__test/pbkdf2-probe?iterations=600000")).body).toEqual({
      ok: false,
      name: "NotSupportedError",
    });
  });

  it("signs up and logs in under that cap, and stores an scrypt hash with its parameters", async () => {
    const email = "hash@worker.example";
    const signUp = await postJson("/v1/auth/signup", { email, password });
    expect(signUp.status, signUp.text).toBe(201);
    const login = await postJson("/v1/auth/login", { email, password });
    expect(login.status, login.text).toBe(200);

    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      const rows = await db<{ password_hash: string }[]>`select password_hash from users where email = ${email}`;
      expect(rows).toHaveLength(1);
      expect(rows[0]?.password_hash).toMatch(/^scrypt\$ln=14,r=8,p=5\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    } finally {
      await db.end({ timeout: 5 });
    }
  });

  describe("what the api Worker bundles, by the metafile of a build as deployed", () => {
    // The deployed bundle is minified: which module a line came from is known only from the metafile.
    let scratch: string;
    let built: BuiltWorker;
    beforeAll(() => {
      scratch = mkdtempSync(path.join(tmpdir(), "loadout-worker-modules-"));
      built = buildWorker("infra/wrangler.jsonc", scratch, "worker.js");
    });
    afterAll(() => {
      if (scratch) rmSync(scratch, { recursive: true, force: true });
    });

    it("bundles no upstream pool: the api Worker builds none (the MCP client's OAuth helpers it does use)", () => {
      expect(built.bundled).toContain("workers/src/outcomes.ts");
      // pool.ts is imported (through workers/src/index.ts) but none of it reaches the bundle.
      expect(built.bundled.filter((f) => /workers\/src\/(pool|direct-answer)\.ts$/.test(f))).toEqual([]);
    });

    it("our code never asks for PBKDF2: not in api/src, db/src, workers/src, nor among the bundled modules", () => {
      const offenders: string[] = [];
      const visit = (dir: string) => {
        if (!existsSync(dir)) return;
        for (const entry of readdirSync(dir, { withFileTypes: true })) {
          const full = path.join(dir, entry.name);
          if (entry.isDirectory()) visit(full);
          else if (/\.[cm]?[jt]sx?$/.test(entry.name) && !entry.name.endsWith(".test.ts")) {
            const file = path.relative(root, full).split(path.sep).join("/");
            if (/pbkdf2/i.test(sourceWithoutComments(file))) offenders.push(file);
          }
        }
      };
      for (const dir of OURS) visit(path.join(root, dir));
      expect(offenders).toEqual([]);

      // PBKDF2 may appear only in bundled modules where it is known to be safe. A module is read
      // whole, so one whose PBKDF2 code was shaken off would still be listed here.
      const mentions = built.bundled
        .filter((file) => /pbkdf2/i.test(sourceWithoutComments(file)))
        .map((file) => {
          const inPackage = file.lastIndexOf("node_modules/");
          return inPackage >= 0 ? file.slice(inPackage) : file;
        });
      expect(built.bundled.length).toBeGreaterThan(100);
      expect(mentions.filter(isOurs)).toEqual([]);
      expect(mentions.sort()).toEqual(
        [
          // postgres.js SCRAM-SHA-256 login: the Postgres server sets the count (4096 by default).
          "node_modules/postgres/cf/polyfills.js",
          "node_modules/postgres/cf/src/connection.js",
          // scrypt's own single-iteration PBKDF2 steps, in plain JavaScript rather than WebCrypto.
          "node_modules/@noble/hashes/pbkdf2.js",
          "node_modules/@noble/hashes/scrypt.js",
          // zip.js's WinZip AES (1,000 iterations): only for encrypted entries, which are refused unread.
          "node_modules/@zip.js/zip.js/lib/core/streams/aes-crypto-stream.js",
          "node_modules/@zip.js/zip.js/lib/core/streams/codecs/aes-hmac-sha1.js",
        ].sort(),
      );
    });
  });
});

/** One /healthz request to a Worker started with other bindings. */
async function healthOf(options: { bindings: Record<string, string>; hyperdrive?: string }) {
  const other = startWorker(options);
  try {
    const res = await other.mf.dispatchFetch("http://loadout.test/healthz");
    const body = (await res.json()) as { status?: string; error: { code: string; message: string } };
    return { status: res.status, body, logs: other.logs.join("\n") };
  } finally {
    await other.mf.dispose();
  }
}

describe("without Hyperdrive", () => {
  it("reaches Postgres directly through DATABASE_URL", async () => {
    const res = await healthOf({ bindings: { LOADOUT_SECRET_KEY: secretKey, DATABASE_URL: databaseUrl } });
    expect(res.status, res.logs).toBe(200);
    expect(res.body).toEqual({ status: "ok" });
  });
});

describe("a misconfigured Worker fails loudly", () => {
  const misconfigured = healthOf;

  it("answers 503 without HYPERDRIVE or DATABASE_URL", async () => {
    const res = await misconfigured({ bindings: { LOADOUT_SECRET_KEY: secretKey } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("unavailable");
    expect(res.body.error.message).toMatch(/misconfigured/);
    // The operator, not the caller, learns what is missing.
    expect(res.logs).toMatch(/Bind HYPERDRIVE \(production\) or set DATABASE_URL/);
    expect(res.body.error.message).not.toMatch(/HYPERDRIVE|DATABASE_URL/);
  });

  it("answers 503 without LOADOUT_SECRET_KEY", async () => {
    const res = await misconfigured({ hyperdrive: databaseUrl, bindings: {} });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("unavailable");
    expect(res.body.error.message).toMatch(/misconfigured/);
    expect(res.logs).toMatch(/LOADOUT_SECRET_KEY is not set/);
  });

  it("answers 503 with a LOADOUT_SECRET_KEY shorter than 32 characters", async () => {
    const res = await misconfigured({ hyperdrive: databaseUrl, bindings: { LOADOUT_SECRET_KEY: "too-short" } });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe("unavailable");
    expect(res.logs).toMatch(/at least 32 characters/);
  });
});

describe("the parity list in workerd: the pipeline answers as the SDK's server does, on both eras", () => {
  // The reference: the same build with every MCP request on the SDK's server, on its own database.
  const referenceName = `${databaseName}_ref`;
  let reference: RunningWorker | undefined;
  const sides: { send: Send; token: string }[] = [];
  let upstream: StatelessUpstream | undefined;
  const sendTo =
    (mf: Miniflare): Send =>
    (url, init) =>
      mf.dispatchFetch(url, init as WorkerRequestInit) as unknown as Promise<Response>;

  beforeAll(async () => {
    upstream = await startStatelessUpstream();
    const url = upstream.url;
    await admin.unsafe(`create database "${referenceName}"`);
    await migratePostgresDatabase(withDatabase(base, referenceName));
    reference = startWorker({
      hyperdrive: withDatabase(base, referenceName),
      bindings: { LOADOUT_SECRET_KEY: secretKey, LOADOUT_INSECURE_COOKIES: "1", LOADOUT_MCP_FAST_LANE: "0" },
      proxy: true,
    });
    await reference.mf.ready;
    for (const mf of [reference.mf, worker()]) {
      const send = sendTo(mf);
      const account = await signUpAccount("http://loadout.test", "parity@example.com", password, send);
      await prepareParityAccount(account, (a, slug) => addApprovedServer(a, slug, url));
      sides.push({ send, token: (await account.token(["mcp"])).secret });
    }
  }, 120_000);

  afterAll(async () => {
    await disposeAfterDatabase(
      reference?.mf,
      () => admin.unsafe(`drop database if exists "${referenceName}" with (force)`),
      withDatabase(base, referenceName),
    );
    await upstream?.stop();
  });

  // The upstream cases too: both Workers reach the server through their proxy Worker.
  describe.each(["modern", "legacy"] as Era[])("%s era", (era) => {
    it.each(PARITY_CASES.map((c) => [c.name, c] as const))("%s", async (_, c) => {
      const [sdk, pipeline] = sides;
      if (!sdk || !pipeline) throw new Error("the Workers did not start");
      const expected = await callCase(sdk.send, "http://loadout.test", sdk.token, era, c);
      const answer = await callCase(pipeline.send, "http://loadout.test", pipeline.token, era, c);
      expect(expected.lane).toBe("sdk");
      expect(differences(answer, expected)).toEqual([]);
    });
  });
});

describe("remote servers in workerd, through the proxy Worker and its Durable Objects", () => {
  let upstream: StatelessUpstream | undefined;
  let account: Account;
  let token: string;
  const send: Send = (url, init) =>
    worker().dispatchFetch(url, init as WorkerRequestInit) as unknown as Promise<Response>;
  const textOf = (result: unknown) =>
    ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((c) => c.text ?? "").join("\n");

  async function connect(era: Era, path = "/mcp", mf: Miniflare = worker()) {
    const client = new Client(
      { name: `workerd-proxy-${era}`, version: "1.0.0" },
      era === "modern" ? { versionNegotiation: { mode: "auto" } } : {},
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://loadout.test${path}`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
        fetch: (url, init) => mf.dispatchFetch(String(url), init as WorkerRequestInit) as unknown as Promise<Response>,
      }),
    );
    expect(client.getProtocolEra()).toBe(era);
    return client;
  }

  /** The server row's id and generation, which name its Durable Object. */
  async function identityOf(slug: string) {
    const db = postgres(databaseUrl, { max: 1, onnotice: () => {} });
    try {
      // Only this suite's account has a server of this slug in the database.
      const [row] = await db<{ id: string; generation: number }[]>`
        select id, generation from mcp_servers where slug = ${slug}`;
      if (!row) throw new Error(`no server ${slug}`);
      return row;
    } finally {
      await db.end({ timeout: 5 });
    }
  }

  /** Open upstream sessions in the object of this server, generation and credentials. */
  async function openSessions(id: string, generation: number) {
    // Miniflare's types describe a fetch-only namespace; its stubs also carry the object's RPC methods.
    const namespace = (await worker().getDurableObjectNamespace("SESSIONS", "loadout-proxy")) as unknown as {
      idFromName(name: string): unknown;
      get(id: unknown): { openSessions(): Promise<number> };
    };
    const stub = namespace.get(namespace.idFromName(`${id}#${generation}#shared`));
    return stub.openSessions();
  }

  beforeAll(async () => {
    upstream = await startStatelessUpstream();
    account = await signUpAccount("http://loadout.test", "proxied@worker.example", password, send);
    token = (await account.token(["mcp"])).secret;
  }, 60_000);

  afterAll(async () => {
    await upstream?.stop();
  });

  it("imports a pasted mcpServers document, tests it through the proxy, and approves its tools", async () => {
    const url = upstream?.url ?? "";
    const imported = await account.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: {
        text: JSON.stringify({ mcpServers: { px: { url, headers: { Authorization: "Bearer upstream-secret-42" } } } }),
      },
    });
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const tested = await account.rest("/v1/workspaces/me/servers/px/test", { method: "POST" });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect(tested.body.error).toBeNull();
    expect(tested.body.server.status).toBe("ok");
    const names = (tested.body.tools.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo", "issues", "image"]));
    const approved = await account.rest("/v1/workspaces/me/servers/px/tools/approve", { method: "POST", body: {} });
    expect(approved.status, JSON.stringify(approved.body)).toBe(200);
    const planSafe = await account.rest("/v1/workspaces/me/servers/px/tools/issues", {
      method: "PATCH",
      body: { planSafeActions: ["list"] },
    });
    expect(planSafe.status, JSON.stringify(planSafe.body)).toBe(200);
    // The opened secret went upstream with the call; it is in no answer.
    expect(upstream?.authorizations()).toContain("Bearer upstream-secret-42");
    expect(JSON.stringify(tested.body)).not.toContain("upstream-secret-42");
  });

  it.each(["modern", "legacy"] as Era[])(
    "lists and calls proxied tools on /mcp and /mcp/s/me/px (%s era)",
    async (era) => {
      const calls = upstream?.calls("echo") ?? 0;
      const client = await connect(era);
      try {
        const listed = (await client.listTools()).tools.map((t) => t.name);
        expect(listed).toEqual(expect.arrayContaining(["px_echo", "px_issues", "skills"]));
        const echoed = await client.callTool({ name: "px_echo", arguments: { text: `hello ${era}` } });
        expect(echoed.isError).toBeFalsy();
        expect(textOf(echoed)).toContain(`hello ${era}`);
      } finally {
        await client.close();
      }
      const single = await connect(era, "/mcp/s/me/px");
      try {
        const listed = (await single.listTools()).tools.map((t) => t.name);
        expect(listed).toEqual(expect.arrayContaining(["echo", "issues"]));
        expect(listed).not.toContain("skills");
        const echoed = await single.callTool({ name: "echo", arguments: { text: "single" } });
        expect(textOf(echoed)).toContain("single");
      } finally {
        await single.close();
      }
      // Each call was forwarded once.
      expect(upstream?.calls("echo")).toBe(calls + 2);
    },
  );

  it("sends a warm proxied call as one upstream request (and prints its latency in workerd)", async () => {
    const client = await connect("modern");
    try {
      await client.callTool({ name: "px_echo", arguments: { text: "warm-up" } });
      const requests = upstream?.requests() ?? 0;
      const times: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        const echoed = await client.callTool({ name: "px_echo", arguments: { text: `warm ${i}` } });
        times.push(performance.now() - started);
        expect(textOf(echoed)).toContain(`warm ${i}`);
      }
      expect((upstream?.requests() ?? 0) - requests).toBe(20);
      times.sort((a, b) => a - b);
      // Beside it, a built-in tool's call on the same client: what the api Worker costs alone.
      const builtIn: number[] = [];
      for (let i = 0; i < 20; i++) {
        const started = performance.now();
        await client.callTool({ name: "skills", arguments: { action: "list" } });
        builtIn.push(performance.now() - started);
      }
      builtIn.sort((a, b) => a - b);
      console.log(
        `warm calls in workerd: proxied p50 ${times[10]?.toFixed(1)} ms (p90 ${times[18]?.toFixed(1)}), built-in skills list p50 ${builtIn[10]?.toFixed(1)} ms`,
      );
    } finally {
      await client.close();
    }
  });

  it("refuses in plan mode what is not plan-safe, and runs what is", async () => {
    const client = await connect("modern", "/mcp?mode=plan");
    try {
      const listed = (await client.listTools()).tools.map((t) => t.name);
      expect(listed).toContain("px_issues");
      expect(listed).not.toContain("px_echo");
      const before = upstream?.calls("issues") ?? 0;
      const refused = await client.callTool({ name: "px_issues", arguments: { action: "create", title: "x" } });
      expect(refused.isError).toBe(true);
      expect(textOf(refused)).toMatch(/plan mode/);
      expect(upstream?.calls("issues")).toBe(before);
      const allowed = await client.callTool({ name: "px_issues", arguments: { action: "list" } });
      expect(allowed.isError).toBeFalsy();
      expect(upstream?.calls("issues")).toBe(before + 1);
    } finally {
      await client.close();
    }
  });

  it("keeps one upstream session per object across requests, and an edit names a fresh object while the old one closes on its alarm", async () => {
    const before = await identityOf("px");
    expect(await openSessions(before.id, before.generation)).toBe(1);
    const current = await account.rest("/v1/workspaces/me/servers/px");
    const patched = await account.rest("/v1/workspaces/me/servers/px", {
      method: "PATCH",
      body: { revision: current.body.revision, headers: { Authorization: "Bearer upstream-secret-43" } },
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const after = await identityOf("px");
    expect(after.generation).toBeGreaterThan(before.generation);
    const client = await connect("modern");
    try {
      const echoed = await client.callTool({ name: "px_echo", arguments: { text: "after the edit" } });
      expect(textOf(echoed)).toContain("after the edit");
    } finally {
      await client.close();
    }
    expect(upstream?.authorizations().at(-1)).toBe("Bearer upstream-secret-43");
    expect(await openSessions(after.id, after.generation)).toBe(1);
    // The old object is addressed no more: its alarm closes its session once it idled.
    const deadline = Date.now() + PROXY_IDLE_MS * 6;
    let open = await openSessions(before.id, before.generation);
    while (open > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      open = await openSessions(before.id, before.generation);
    }
    expect(open).toBe(0);
  });

  it("reaches a sessionful 2025-11-25 upstream (server-everything) from its object, one session across requests", async () => {
    const everything = await startEverything();
    try {
      const imported = await account.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: { text: JSON.stringify({ mcpServers: { ev: { url: everything.url } } }) },
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      const tested = await account.rest("/v1/workspaces/me/servers/ev/test", { method: "POST" });
      expect(tested.body.error, JSON.stringify(tested.body)).toBeNull();
      await account.rest("/v1/workspaces/me/servers/ev/tools/approve", { method: "POST", body: {} });
      for (const era of ["modern", "legacy"] as Era[]) {
        const client = await connect(era);
        try {
          const echoed = await client.callTool({
            name: "ev_echo",
            arguments: { message: `through the object ${era}` },
          });
          expect(textOf(echoed)).toContain(`through the object ${era}`);
        } finally {
          await client.close();
        }
      }
      const { id, generation } = await identityOf("ev");
      expect(await openSessions(id, generation)).toBe(1);
    } finally {
      await everything.stop();
    }
  });

  it("holds the call's timeout in the object, and gives the upstream request up", async () => {
    const odd = await startMisbehavingUpstream();
    try {
      const imported = await account.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: { text: JSON.stringify({ mcpServers: { odd: { url: odd.url } } }) },
      });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      const tested = await account.rest("/v1/workspaces/me/servers/odd/test", { method: "POST" });
      expect(tested.body.error, JSON.stringify(tested.body)).toBeNull();
      await account.rest("/v1/workspaces/me/servers/odd/tools/approve", { method: "POST", body: {} });
      const setTimeoutMs = async (callTimeoutMs: number) => {
        const current = await account.rest("/v1/workspaces/me/servers/odd");
        const patched = await account.rest("/v1/workspaces/me/servers/odd", {
          method: "PATCH",
          body: { revision: current.body.revision, callTimeoutMs },
        });
        expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      };
      await setTimeoutMs(1_500);
      const client = await connect("modern");
      try {
        const timedOut = await client.callTool({ name: "odd_hang", arguments: {} });
        expect(textOf(timedOut)).toMatch(/did not answer hang within 2 s\. It was sent once and not retried/);
        // The timed-out request was given up on upstream too (2026-07-28: its request closed).
        await expect.poll(() => odd.cancelled() + odd.aborted(), { timeout: 5_000 }).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    } finally {
      await odd.stop();
    }
  });

  it("stores the list an upstream announces (tools/list_changed), through the api Worker's ToolsChanged entrypoint", async () => {
    const client = await connect("modern");
    try {
      await client.callTool({ name: "px_echo", arguments: { text: "warm" } });
      upstream?.addTool("late_arrival");
      const listed = async () =>
        (await account.rest("/v1/workspaces/me/servers/px/tools")).body.tools.map((t: { name: string }) => t.name);
      await expect.poll(listed, { timeout: PROXY_IDLE_MS }).toContain("late_arrival");
      const tools = await account.rest("/v1/workspaces/me/servers/px/tools");
      // Withheld until reviewed, as on Node.
      expect(tools.body.tools.find((t: { name: string }) => t.name === "late_arrival").pin).toBe("new");
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain("px_late_arrival");
    } finally {
      await client.close();
    }
  });

  it("stores the prompts an upstream announces (prompts/list_changed), listed again through the same object", async () => {
    const items = await startStatelessUpstream({ items: true });
    try {
      await addApprovedServer(account, "itm", items.url);
      const client = await connect("modern", "/mcp/s/me/itm");
      try {
        // A call opens the object's session, which listens for the upstream's list changes.
        expect((await client.callTool({ name: "echo", arguments: { text: "open" } })).isError).toBeFalsy();
        items.setPromptVersion(2);
        const greet = async () => {
          const listed = await account.rest("/v1/workspaces/me/servers/itm/items");
          return JSON.stringify(
            (listed.body.items as { kind: string; key: string }[]).find(
              (i) => i.kind === "prompt" && i.key === "greet",
            ),
          );
        };
        await expect.poll(greet, { timeout: PROXY_IDLE_MS }).toMatch(/version 2/);
        // Changed since approval: withheld until approved again, as on Node.
        expect((await client.listPrompts()).prompts).toEqual([]);
      } finally {
        await client.close();
      }
    } finally {
      await items.stop();
    }
  });

  it("a Worker without the proxy on the same database lists no upstream tool and says why a call is refused", async () => {
    const bare = startWorker({
      hyperdrive: databaseUrl,
      bindings: { LOADOUT_SECRET_KEY: secretKey, LOADOUT_INSECURE_COOKIES: "1" },
    });
    try {
      await bare.mf.ready;
      const client = await connect("modern", "/mcp", bare.mf);
      try {
        const listed = (await client.listTools()).tools.map((t) => t.name);
        expect(listed).toContain("skills");
        expect(listed.filter((n) => n.startsWith("px_"))).toEqual([]);
        const refused = await client.callTool({ name: "px_echo", arguments: { text: "x" } });
        expect(refused.isError).toBe(true);
        expect(textOf(refused)).toMatch(/runs no upstream proxy, so it cannot reach remote MCP servers/);
      } finally {
        await client.close();
      }
      // The call's record is written after the answer (waitUntil); disposing before it lands cuts
      // its database socket, which Miniflare's Hyperdrive proxy reports as an unhandled ECONNRESET.
      await new Promise((r) => setTimeout(r, 1_000));
      expect(bare.logs.join("\n")).toMatch(/runs no upstream proxy/);
    } finally {
      await bare.mf.dispose();
    }
  });
});

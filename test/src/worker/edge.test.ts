/**
 * The api Worker's edge duties in workerd: client ID metadata documents fetched through the SSRF
 * guard over DNS over HTTPS (a DoH server and a document host started here, on loopback, which
 * the test binding LOADOUT_ALLOW_LOOPBACK_UPSTREAMS lets through), the 503 while the database is
 * behind the Worker's schema, and the cron trigger that re-seals rotated secrets.
 */
import { createHash, randomBytes } from "node:crypto";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { createSecretBox, deploymentKeys, sealedKeyId } from "@loadout/api/auth/secret-box";
import { headerAd } from "@loadout/api/services/servers/upstreams";
import { connectPostgres, mcpServers, newId } from "@loadout/db";
import { MIGRATIONS_FOLDER, migratePostgresDatabase } from "@loadout/db/open";
import { eq } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import { migrate } from "drizzle-orm/postgres-js/migrator";
import type { RequestInit as WorkerRequestInit } from "miniflare";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpAccount } from "../helpers/account";
import { buildWorkerIfStale, disposeAfterDatabase, type RunningWorker, scratchDatabase, startWorker } from "./harness";

const KEY_A = "edge-test-key-A-0123456789abcdefghijklmnop";
const KEY_B = "edge-test-key-B-0123456789abcdefghijklmnop";
const password = "correct horse battery";
const callback = "https://claude.ai/api/mcp/auth_callback";

/** Loopback HTTP: a DoH resolver (JSON API) and the host of a client metadata document. */
let server: Server;
let origin: string;
let documentFetches = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://local.test");
    if (url.pathname === "/dns-query") {
      const name = url.searchParams.get("name");
      const type = url.searchParams.get("type") === "AAAA" ? 28 : 1;
      const answer = name === "private.example" && type === 1 ? [{ type: 1, TTL: 60, data: "10.1.2.3" }] : [];
      res.writeHead(200, { "content-type": "application/dns-json" });
      return void res.end(JSON.stringify({ Status: name === "private.example" ? 0 : 3, Answer: answer }));
    }
    if (url.pathname === "/client.json") {
      documentFetches++;
      res.writeHead(200, { "content-type": "application/json", "cache-control": "max-age=3600" });
      return void res.end(
        JSON.stringify({ client_id: `${origin}/client.json`, client_name: "Edge Client", redirect_uris: [callback] }),
      );
    }
    if (url.pathname === "/moved") {
      // Redirects are followed by hand, and each hop goes through the guard again.
      return void res.writeHead(302, { location: "https://private.example/client.json" }).end();
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  buildWorkerIfStale();
}, 120_000);
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const send = (w: RunningWorker) => (url: string, init?: RequestInit) =>
  w.mf.dispatchFetch(url, init as WorkerRequestInit) as unknown as Promise<Response>;

/** Miniflare's loopback hop sets Host, so the issuer (and the MCP resource) is the address it listens on. */
function authorizeUrl(issuer: string, clientId: string): string {
  const verifier = randomBytes(32).toString("base64url");
  return `http://loadout.test/oauth/authorize?${new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: callback,
    state: "edge",
    code_challenge: createHash("sha256").update(verifier).digest("base64url"),
    code_challenge_method: "S256",
    resource: `${issuer}/mcp`,
  })}`;
}

describe("client ID metadata documents on the Worker", () => {
  let database: Awaited<ReturnType<typeof scratchDatabase>>;
  let worker: RunningWorker;
  beforeAll(async () => {
    database = await scratchDatabase("loadout_edge");
    await migratePostgresDatabase(database.url);
    worker = startWorker({
      hyperdrive: database.url,
      bindings: {
        LOADOUT_SECRET_KEY: KEY_A,
        LOADOUT_INSECURE_COOKIES: "1",
        LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1",
        LOADOUT_DOH_URL: `${origin}/dns-query`,
      },
    });
    await worker.mf.ready;
  }, 60_000);
  afterAll(async () => {
    await disposeAfterDatabase(worker?.mf, async () => database?.drop(), database?.url);
  });

  let issuer = "";
  it("are offered in the authorization server's metadata", async () => {
    const meta = (await (await send(worker)("http://loadout.test/.well-known/oauth-authorization-server")).json()) as {
      issuer: string;
    };
    expect(meta).toMatchObject({ client_id_metadata_document_supported: true });
    issuer = meta.issuer;
  });

  it("fetches, validates and caches a document, and an authorization request with that client_id goes to consent", async () => {
    const clientId = `${origin}/client.json`;
    const first = await send(worker)(authorizeUrl(issuer, clientId), { redirect: "manual" });
    expect(first.status, await first.clone().text()).toBe(302);
    expect(first.headers.get("location")).toMatch(/\/consent\/\?request=/);
    expect(documentFetches).toBe(1);

    const db = postgres(database.url, { max: 1, onnotice: () => {} });
    try {
      const rows = await db<{ kind: string; name: string; expires_at: Date }[]>`
        select kind, name, expires_at from oauth_clients where client_id = ${clientId}`;
      expect(rows).toEqual([{ kind: "metadata", name: "Edge Client", expires_at: expect.any(Date) }]);
      expect(rows[0]?.expires_at.getTime()).toBeGreaterThan(Date.now() + 3_000_000);
    } finally {
      await db.end({ timeout: 5 });
    }

    // Within the document's cache lifetime, from Postgres: not fetched again.
    const again = await send(worker)(authorizeUrl(issuer, clientId), { redirect: "manual" });
    expect(again.status).toBe(302);
    expect(documentFetches).toBe(1);
  });

  it("refuses a document redirected to a host that resolves to a private address", async () => {
    const res = await send(worker)(authorizeUrl(issuer, `${origin}/moved`), { redirect: "manual" });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain("may not be fetched: private.example resolves to 10.1.2.3");
  });

  it("refuses a document whose host resolves (over DoH) to a private address, saying why", async () => {
    const res = await send(worker)(authorizeUrl(issuer, "https://private.example/client.json"), { redirect: "manual" });
    expect(res.status).toBe(400);
    const page = await res.text();
    expect(page).toContain("may not be fetched");
    expect(page).toContain("private.example resolves to 10.1.2.3, a private network address");
  });
});

/** The migrations folder without its newest migration (the SQL file and its journal entry). */
function migrationsWithoutTheLast(): { folder: string; total: number } {
  const folder = mkdtempSync(path.join(tmpdir(), "loadout-migrations-"));
  cpSync(MIGRATIONS_FOLDER, folder, { recursive: true });
  const journalPath = path.join(folder, "meta/_journal.json");
  const journal = JSON.parse(readFileSync(journalPath, "utf8")) as { entries: { tag: string }[] };
  const last = journal.entries.pop();
  if (!last) throw new Error("no migrations");
  rmSync(path.join(folder, `${last.tag}.sql`));
  writeFileSync(journalPath, JSON.stringify(journal));
  return { folder, total: journal.entries.length + 1 };
}

describe("a database behind the Worker's schema", () => {
  it("is answered 503 with what to do, until the migrations have run", async () => {
    const database = await scratchDatabase("loadout_edge_behind");
    const { folder, total } = migrationsWithoutTheLast();
    const client = postgres(database.url, { max: 1, onnotice: () => {} });
    let worker: RunningWorker | undefined;
    try {
      await migrate(drizzle(client), { migrationsFolder: folder });
      worker = startWorker({ hyperdrive: database.url, bindings: { LOADOUT_SECRET_KEY: KEY_A } });
      for (const url of ["http://loadout.test/healthz", "http://loadout.test/v1/me"]) {
        const res = await send(worker)(url);
        expect(res.status).toBe(503);
        const body = (await res.json()) as { error: { code: string; message: string } };
        expect(body.error.code).toBe("unavailable");
        expect(body.error.message).toContain("The database is behind this Worker's schema: run the migrations");
        expect(body.error.message).toContain("docs/operations.md");
        expect(JSON.stringify(body)).not.toMatch(/select|drizzle|__drizzle_migrations/i);
      }
      expect(worker.logs.join("\n")).toContain(`schema behind: ${total - 1} of ${total} migrations applied`);

      await migratePostgresDatabase(database.url);
      const after = await send(worker)("http://loadout.test/healthz");
      expect(after.status).toBe(200);
    } finally {
      await client.end({ timeout: 5 });
      rmSync(folder, { recursive: true, force: true });
      await disposeAfterDatabase(worker?.mf, () => database.drop(), database.url);
    }
  });
});

describe("the cron trigger", () => {
  it("re-seals server secrets still under a previous LOADOUT_SECRET_KEY", async () => {
    const database = await scratchDatabase("loadout_edge_cron");
    await migratePostgresDatabase(database.url);
    const opened = connectPostgres(database.url, { max: 1 });
    let worker: RunningWorker | undefined;
    try {
      worker = startWorker({
        hyperdrive: database.url,
        bindings: { LOADOUT_SECRET_KEY: KEY_B, LOADOUT_PREVIOUS_SECRET_KEYS: KEY_A, LOADOUT_INSECURE_COOKIES: "1" },
      });
      const account = await signUpAccount("http://loadout.test", "cron@edge.example", password, send(worker));
      const me = await account.rest("/v1/me");
      const workspaceId = (me.body as { workspaces: { id: string }[] }).workspaces[0]?.id ?? "";
      const id = newId("server", Date.now());
      const underA = createSecretBox(deploymentKeys(KEY_A), { purpose: "server-headers" });
      await opened.db.insert(mcpServers).values({
        id,
        workspaceId,
        slug: "rotated",
        label: "Rotated",
        url: "https://upstream.example/mcp",
        transport: "streamable-http",
        headers: { authorization: await underA.seal("Bearer upstream-secret", headerAd(id, "authorization")) },
      });

      // Fetcher.scheduled, which miniflare's types leave out.
      const fetcher = (await worker.mf.getWorker()) as unknown as {
        scheduled(options: { cron: string }): Promise<{ outcome: string }>;
      };
      const outcome = await fetcher.scheduled({ cron: "17 * * * *" });
      expect(outcome.outcome).toBe("ok");
      const [row] = await opened.db
        .select({ headers: mcpServers.headers })
        .from(mcpServers)
        .where(eq(mcpServers.id, id));
      expect(sealedKeyId(row?.headers.authorization ?? "")).toBe(deploymentKeys(KEY_B)[0]?.id);
      expect(worker.logs.join("\n")).toMatch(/server secrets re-sealed under LOADOUT_SECRET_KEY.*"resealed":1/);
    } finally {
      await opened.close();
      await disposeAfterDatabase(worker?.mf, () => database.drop(), database.url);
    }
  });
});

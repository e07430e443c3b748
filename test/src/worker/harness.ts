import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { writePasswordDictionary } from "@loadout/api/entry/password-dictionary-file";
import { withDatabase } from "@loadout/db/testing";
import { Miniflare } from "miniflare";
import postgres from "postgres";

/**
 * The built api Worker (api/dist/worker/worker.js) in workerd through Miniflare, for test files
 * that start it with their own bindings. Needs the machine's Postgres (the Worker has no PGlite).
 */

export const root = fileURLToPath(new URL("../../../", import.meta.url));
const outDir = path.join(root, "api/dist/worker");
export const scriptPath = path.join(outDir, "worker.js");
export const wranglerConfigPath = path.join(root, "infra/wrangler.jsonc");

process.env.CLOUDFLARE_CF_FETCH_ENABLED = "false";
process.env.WRANGLER_SEND_METRICS = "false";

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(full));
    else if (!entry.name.endsWith(".test.ts")) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** The proxy Worker's bundle, built by the same `npm run build -w @loadout/api`. */
export const proxyScriptPath = path.join(root, "api/dist/proxy/proxy-worker.js");

/** Builds both Workers as `npm run build -w @loadout/api` does, unless both bundles are newer than their sources. */
export function buildWorkerIfStale(): void {
  const sources = Math.max(
    ...["api/src", "db/src", "db/migrations", "workers/src"].map((dir) => newestMtime(path.join(root, dir))),
    statSync(wranglerConfigPath).mtimeMs,
    statSync(path.join(root, "infra/wrangler.proxy.jsonc")).mtimeMs,
    statSync(path.join(root, "api/package.json")).mtimeMs,
  );
  const fresh = () =>
    Math.min(...[scriptPath, proxyScriptPath].map((file) => (existsSync(file) ? statSync(file).mtimeMs : 0))) >=
    sources;
  if (fresh()) return;
  // Test files run in parallel and each may find the bundles stale: one builds, the others wait for
  // it (a directory is created atomically), so none starts a Worker from a bundle being written.
  mkdirSync(path.dirname(buildLock), { recursive: true });
  for (;;) {
    try {
      mkdirSync(buildLock);
      break;
    } catch {
      // A lock older than any build is one a killed run left behind.
      if (existsSync(buildLock) && Date.now() - statSync(buildLock).mtimeMs > 5 * 60_000)
        rmSync(buildLock, { recursive: true, force: true });
      else Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
    }
  }
  try {
    if (fresh()) return;
    // The assets directory must exist for wrangler to read the config, even before the console is built.
    mkdirSync(path.join(root, "web/out"), { recursive: true });
    execFileSync("npm", ["run", "build", "-w", "@loadout/api"], { cwd: root, stdio: "pipe", env: process.env });
  } finally {
    rmSync(buildLock, { recursive: true, force: true });
  }
}

/** Held while one test file builds the Workers (see buildWorkerIfStale). */
const buildLock = path.join(root, "api/dist/.worker-build.lock");

const webOut = path.join(root, "web/out");

/**
 * The console's static files as the Worker's ASSETS binding (`assets` in infra/wrangler.jsonc),
 * with the password dictionary sign-up reads there written in, as the console's build writes it.
 * The Worker answers every request first, as in these tests before: only its binding is asked
 * for files.
 */
export function assetsOptions() {
  writePasswordDictionary(webOut);
  return {
    assets: {
      directory: webOut,
      binding: "ASSETS",
      routerConfig: { has_user_worker: true, invoke_user_worker_ahead_of_assets: true },
    },
  };
}

/** Hyperdrive's local binding insists on a password; trust authentication ignores it. */
function withPassword(url: string): string {
  const parsed = new URL(url);
  if (!parsed.password) parsed.password = "unused";
  return parsed.toString();
}

export interface RunningWorker {
  mf: Miniflare;
  /** What the Worker wrote to its console. */
  logs: string[];
}

/** `assets: false` leaves out the ASSETS binding (a deployment without the console's files). */
export function startWorker(options: {
  bindings: Record<string, string>;
  hyperdrive: string;
  assets?: boolean;
}): RunningWorker {
  const logs: string[] = [];
  const compatibilityDate = /"compatibility_date"\s*:\s*"([^"]+)"/.exec(readFileSync(wranglerConfigPath, "utf8"))?.[1];
  const mf = new Miniflare({
    // Listed rather than scanned: Miniflare refuses the bundle's dynamic imports when it scans.
    modules: [{ type: "ESModule", path: scriptPath }],
    modulesRoot: outDir,
    compatibilityDate: compatibilityDate ?? "2026-04-20",
    compatibilityFlags: ["nodejs_compat"],
    cf: false,
    hyperdrives: { HYPERDRIVE: withPassword(options.hyperdrive) },
    bindings: options.bindings,
    ...(options.assets === false ? {} : assetsOptions()),
    handleStructuredLogs: ({ level, message }: { level: string; message: string }) => {
      logs.push(`${level}: ${message}`);
    },
  });
  return { mf, logs };
}

const base = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";

/** A new, empty Postgres database for one test file; `drop` removes it. */
export async function scratchDatabase(prefix: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `${prefix}_${randomBytes(6).toString("hex")}`;
  const admin = postgres(base, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database "${name}"`);
  return {
    url: withDatabase(base, name),
    async drop() {
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.end({ timeout: 5 });
    },
  };
}

/**
 * Stops a Worker after its database. Miniflare's Hyperdrive proxy pipes workerd's sockets to
 * Postgres without error listeners (patches/miniflare+*.patch adds them), so disposing workerd
 * while one of them is open (an idle connection, or a `waitUntil` still writing) reset it into an
 * uncaught ECONNRESET that failed the run. Dropping the database first makes Postgres end those
 * connections, which the proxy passes on as a normal close; then workerd goes.
 */
export async function disposeAfterDatabase(
  mf: { dispose(): Promise<void> } | undefined,
  dropDatabase: () => Promise<unknown>,
  databaseUrl?: string,
): Promise<void> {
  try {
    // A query still running (a call's record, written after its answer) would be cut mid-write,
    // which Postgres answers with a reset: it is let finish first, for at most two seconds.
    if (databaseUrl) await quiet(databaseUrl, 2_000);
    await dropDatabase();
  } finally {
    await mf?.dispose();
  }
}

/** Waits until no connection to this database is running a query (or `ms` pass). */
async function quiet(databaseUrl: string, ms: number): Promise<void> {
  const name = new URL(databaseUrl).pathname.slice(1);
  const sql = postgres(base, { max: 1, onnotice: () => {} });
  try {
    for (const until = Date.now() + ms; Date.now() < until; ) {
      const [row] = await sql`
        select count(*)::int as busy from pg_stat_activity
        where datname = ${name} and state <> 'idle' and pid <> pg_backend_pid()`;
      if (!row?.busy) return;
      await new Promise((r) => setTimeout(r, 50));
    }
  } finally {
    await sql.end({ timeout: 5 });
  }
}

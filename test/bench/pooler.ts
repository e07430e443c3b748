/**
 * A connection pooler in front of the machine's Postgres, standing in for Hyperdrive's pool in the
 * Workers bench. In production the Worker opens a connection per request to Hyperdrive, which hands
 * it one of the warm connections it keeps to the database. Local Hyperdrive (Miniflare) connects
 * straight to the database instead, so every request there pays for a new backend: a fork,
 * authentication and cold catalog caches, about 5 ms on the bench machine, which production does
 * not pay. pgbouncer in session mode does what Hyperdrive does for us here: a client connection per
 * request, a warm server connection under it, reset (`DISCARD ALL`) when the client leaves.
 * pgbouncer is a Debian package (`apt-get install pgbouncer`); without it the bench says so and
 * measures the local binding as it is.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import postgres from "postgres";

export interface Pooler {
  /** The same database, reached through the pooler. */
  via(databaseUrl: string): string;
  stop(): Promise<void>;
}

/** Why no pooler runs here, or null when pgbouncer is installed. */
export function poolerMissing(): string | null {
  const probe = spawnSync("pgbouncer", ["--version"], { encoding: "utf8" });
  return probe.error ? "pgbouncer is not installed (apt-get install pgbouncer)" : null;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (!address || typeof address !== "object") throw new Error("no free port");
  return address.port;
}

/** Starts pgbouncer in front of `databaseUrl`'s server, for any database on it. */
export async function startPooler(databaseUrl: string): Promise<Pooler> {
  const target = new URL(databaseUrl);
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "loadout-pooler-"));
  // pgbouncer will not run as root; it then runs as the database's own system user, who reads this.
  chmodSync(dir, 0o755);
  const user = decodeURIComponent(target.username || "postgres");
  const password = target.password ? ` password=${decodeURIComponent(target.password)}` : "";
  const config = path.join(dir, "pgbouncer.ini");
  writeFileSync(
    config,
    [
      "[databases]",
      `* = host=${target.hostname} port=${target.port || 5432} user=${user}${password}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      // Any client password: the forced user above is who connects to the database.
      "auth_type = any",
      "pool_mode = session",
      "max_client_conn = 500",
      "default_pool_size = 20",
      "server_reset_query = DISCARD ALL",
      "unix_socket_dir =",
      "ignore_startup_parameters = extra_float_digits,application_name",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn("pgbouncer", [...(asRoot ? ["-u", "postgres"] : []), config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let printed = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    printed += chunk.toString();
  });
  const via = (url: string) => {
    const pooled = new URL(url);
    pooled.hostname = "127.0.0.1";
    pooled.port = String(port);
    return pooled.toString();
  };
  const stop = async () => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGINT");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  // Ready once a query goes through it.
  const deadline = Date.now() + 10_000;
  for (;;) {
    const sql = postgres(via(databaseUrl), { max: 1, onnotice: () => {}, connect_timeout: 1 });
    try {
      await sql`select 1`;
      return { via, stop };
    } catch (error) {
      if (child.exitCode !== null || Date.now() > deadline) {
        await stop();
        throw new Error(`pgbouncer did not start: ${(error as Error).message}\n${printed}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      await sql.end({ timeout: 1 });
    }
  }
}

/**
 * A Postgres cluster of the test's own (initdb into a temporary folder, on a free port), so a
 * test can stop and start the database under a running Loadout. Never the machine's shared
 * server: that one serves every other test and engineer.
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import path from "node:path";

export interface Cluster {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` */
  url: string;
  port: number;
  /** `fast` lets backends end their transactions; `immediate` kills them as a crash would. */
  stop(mode: "fast" | "immediate"): void;
  start(): void;
  /** Stops the cluster and removes its folder. */
  destroy(): void;
}

/** The folder holding initdb and pg_ctl, or null where Postgres's server binaries are not installed. */
export function postgresBin(): string | null {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = path.join(root, version, "bin");
      if (existsSync(path.join(bin, "initdb"))) return bin;
    }
  }
  const found = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" });
  return found.status === 0 && found.stdout.trim() ? path.dirname(found.stdout.trim()) : null;
}

/** initdb and the server refuse to run as root: run them as `postgres` then. */
function asOwner(command: string, args: string[]): string {
  const root = process.getuid?.() === 0;
  const [file, argv] = root ? ["runuser", ["-u", "postgres", "--", command, ...args]] : [command, args];
  return execFileSync(file, argv, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      const port = typeof address === "object" && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

export async function startCluster(bin: string): Promise<Cluster> {
  const dir = asOwner("mktemp", ["-d", "/tmp/loadout-faults-XXXXXX"]).trim();
  const data = path.join(dir, "data");
  const port = await freePort();
  // No fsync: the test stops the server, it does not crash the machine.
  asOwner(path.join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"]);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off`;
  const pgCtl = path.join(bin, "pg_ctl");
  const start = () => {
    asOwner(pgCtl, ["-D", data, "-o", options, "-l", path.join(dir, "log"), "-w", "-t", "30", "start"]);
  };
  let running = false;
  start();
  running = true;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    stop(mode) {
      asOwner(pgCtl, ["-D", data, "-m", mode, "-w", "-t", "30", "stop"]);
      running = false;
    },
    start() {
      start();
      running = true;
    },
    destroy() {
      if (running) asOwner(pgCtl, ["-D", data, "-m", "immediate", "-w", "stop"]);
      running = false;
      asOwner("rm", ["-rf", dir]);
    },
  };
}

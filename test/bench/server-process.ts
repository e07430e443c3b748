import type { ChildProcess } from "node:child_process";
import { closeSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { spawnServer } from "../../scripts/server.mjs";

/** What memory-probe.mjs reports, in MiB: /proc/self/status and process.memoryUsage(). */
export interface MemoryFigures {
  rss: number;
  rssAnon: number;
  rssFile: number;
  heapUsed: number;
  heapTotal: number;
  heapUsedAfterGc: number;
  external: number;
  arrayBuffers: number;
}

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  /** The server's memory breakdown (it runs a full GC for the heap after GC). */
  memory(): Promise<MemoryFigures>;
  stop(): Promise<void>;
}

const PROBE = fileURLToPath(new URL("memory-probe.mjs", import.meta.url));

/** The real Node entry in its own process, started as `npm start` starts it (so the load generator does not share its event loop). */
export async function startServerProcess(env: Record<string, string>, nodeArgs: string[] = []): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-bench-"));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  // Logs go to a file, not a pipe: draining a pipe would cost the load generator's process CPU.
  const logFile = path.join(dataDir, "server.log");
  const logFd = openSync(logFile, "w");
  const memoryFile = path.join(dataDir, "memory.json");
  const child = await spawnServer({
    // The probe is the bench's alone: `npm start` runs without it. BENCH_SERVER_NODE_ARGS adds
    // Node flags after npm start's own, for trying one (`--max-semi-space-size=16`: V8's default).
    nodeArgs: [
      "--expose-gc",
      "--import",
      PROBE,
      ...(process.env.BENCH_SERVER_NODE_ARGS ?? "").split(" ").filter(Boolean),
      ...nodeArgs,
    ],
    env: {
      ...process.env,
      LOADOUT_PORT: String(port),
      LOADOUT_DATA_DIR: dataDir,
      LOADOUT_BENCH_MEMORY_FILE: memoryFile,
      ...env,
    },
    stdio: ["ignore", logFd, "inherit"],
  });
  closeSync(logFd);
  let exited: number | null | undefined;
  child.once("exit", (code) => {
    exited = code;
  });
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    const seen = readFileSync(logFile, "utf8");
    url = /Loadout is running at (\S+)/.exec(seen)?.[1];
    if (url) break;
    if (exited !== undefined || Date.now() > deadline)
      throw new Error(`the server did not start (exit ${exited}):\n${seen}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    async memory() {
      rmSync(memoryFile, { force: true });
      child.kill("SIGUSR2");
      const until = Date.now() + 10_000;
      while (!existsSync(memoryFile)) {
        if (Date.now() > until) throw new Error("the server wrote no memory figures");
        await new Promise((r) => setTimeout(r, 50));
      }
      return JSON.parse(readFileSync(memoryFile, "utf8")) as MemoryFigures;
    },
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

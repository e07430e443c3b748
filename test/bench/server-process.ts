import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

export interface ServerProcess {
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

/** The real Node entry in its own process (so the load generator does not share its event loop). */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-bench-"));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const child = spawn(process.execPath, ["--import", "tsx", "api/src/node.ts"], {
    cwd: ROOT,
    env: { ...process.env, LOADOUT_PORT: String(port), LOADOUT_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    const timer = setTimeout(() => reject(new Error(`the server did not start:\n${seen}`)), 60_000);
    child.stdout?.on("data", (chunk: Buffer) => {
      // Once started, keep draining stdout (the per-request log lines) without storing it.
      if (seen === null) return;
      seen += chunk.toString();
      const match = /Loadout is running at (\S+)/.exec(seen);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => reject(new Error(`the server exited (${code}):\n${seen}`)));
  });
  return {
    url,
    child,
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

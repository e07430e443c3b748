/**
 * Loadout's real Node entry (`api/src/node.ts`) in a process of its own: a test of what ends the
 * process must not share it, and a signal must reach the entry's own handlers.
 */
import type { ChildProcess } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { spawnServer } from "../../../scripts/server.mjs";

export interface LoadoutProcess {
  url: string;
  /** LOADOUT_DATA_DIR: the embedded PGlite's data is under `pglite/` when no DATABASE_URL is given. */
  dataDir: string;
  child: ChildProcess;
  /** The exit code or signal once the process has ended; undefined while it runs. */
  exited(): { code: number | null; signal: NodeJS.Signals | null } | undefined;
  /** Resolves when the process has ended (at once if it has). */
  ended(): Promise<void>;
  /** Everything the process wrote to stdout and stderr. */
  output(): string;
  stop(): Promise<void>;
}

export async function startLoadoutProcess(env: Record<string, string>): Promise<LoadoutProcess> {
  const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-faults-app-"));
  const logFile = path.join(dataDir, "output.log");
  const logFd = openSync(logFile, "w");
  // The database is the caller's choice: never a DATABASE_URL inherited from the test run.
  const inherited = { ...process.env };
  delete inherited.DATABASE_URL;
  const child = await spawnServer({
    env: { ...inherited, LOADOUT_PORT: "0", LOADOUT_HOST: "127.0.0.1", LOADOUT_DATA_DIR: dataDir, ...env },
    stdio: ["ignore", logFd, logFd],
  });
  closeSync(logFd);
  let exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  const ended = new Promise<void>((resolve) =>
    child.once("exit", (code, signal) => {
      exit = { code, signal };
      resolve();
    }),
  );
  const output = () => readFileSync(logFile, "utf8");
  const deadline = Date.now() + 60_000;
  let url: string | undefined;
  while (!url) {
    url = /Loadout is running at (\S+)/.exec(output())?.[1];
    if (url) break;
    if (exit || Date.now() > deadline) throw new Error(`Loadout did not start (${JSON.stringify(exit)}):\n${output()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    dataDir,
    child,
    exited: () => exit,
    ended: () => ended,
    output,
    async stop() {
      if (!exit) {
        child.kill("SIGKILL");
        await ended;
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

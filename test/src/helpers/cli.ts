import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The `loadout` bin, as `npx loadout` runs it from a clone. */
export const CLI_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../../cli/bin/loadout.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A temporary home folder for the CLI and the clients' folders; removed by `remove`. */
export function tempHome(clients: string[] = []): { home: string; remove: () => void } {
  const home = mkdtempSync(path.join(tmpdir(), "loadout-home-"));
  for (const folder of clients) mkdirSync(path.join(home, folder), { recursive: true });
  return { home, remove: () => rmSync(home, { recursive: true, force: true }) };
}

/** The environment a CLI child runs in: this home, this server, nothing inherited that points elsewhere. */
export function cliEnv(home: string, url: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, LOADOUT_URL: url, ...extra };
  for (const name of ["XDG_CONFIG_HOME", "LOADOUT_CONFIG_DIR", "LOADOUT_TOKEN", "CODEX_HOME", "APPDATA"])
    if (!(name in extra)) delete env[name];
  return env;
}

/** Starts the CLI as a child process. */
export function spawnCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): ChildProcess {
  return spawn(process.execPath, [CLI_BIN, ...args], {
    env: options.env,
    cwd: options.cwd ?? options.env.HOME,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** Runs the CLI to its end and gives its exit code and output. */
export function runCli(args: string[], options: { env: NodeJS.ProcessEnv; cwd?: string }): Promise<CliResult> {
  const child = spawnCli(args, options);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

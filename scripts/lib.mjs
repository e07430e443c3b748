// Helpers shared by the start and test scripts (Node only, no dependencies).
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));

/** The newest modification time of any file under `dir` (0 if it does not exist). */
export function newestMtime(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name === ".next" || entry.name === "out") continue;
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(full) : statSync(full).mtimeMs);
  }
  return newest;
}

/** Builds the console's static export when it is missing or older than its sources. */
export function ensureConsoleBuilt() {
  const index = path.join(ROOT, "web/out/index.html");
  const sources = Math.max(
    newestMtime(path.join(ROOT, "web/src")),
    statSync(path.join(ROOT, "web/next.config.mjs")).mtimeMs,
  );
  if (existsSync(index) && statSync(index).mtimeMs >= sources) return;
  console.log("Building the console (web/out); this happens on first run and after console changes…");
  run("npm", ["run", "build", "-w", "@loadout/web"]);
}

export function run(command, args, options = {}) {
  const result = spawnSync(command, args, {
    cwd: ROOT,
    stdio: "inherit",
    ...options,
    env: { ...process.env, ...options.env },
  });
  if (result.status !== 0) {
    console.error(`\n✗ ${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal}).`);
    process.exit(result.status ?? 1);
  }
}

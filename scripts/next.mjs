// Runs the hoisted `next` CLI inside web/, so `npm run build -w @loadout/web` and
// `node scripts/next.mjs build` behave the same wherever npm placed the package.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const require = createRequire(import.meta.url);
const nextBin = require.resolve("next/dist/bin/next");
const webDir = fileURLToPath(new URL("../web/", import.meta.url));

const child = spawn(process.execPath, [nextBin, ...process.argv.slice(2)], {
  cwd: webDir,
  stdio: "inherit",
  env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
});

const forwarded = ["SIGINT", "SIGTERM", "SIGHUP"];
const forward = (signal) => {
  child.kill(signal);
};
for (const signal of forwarded) process.on(signal, forward);

child.on("error", (error) => {
  console.error(`Could not start next: ${error.message}`);
  process.exit(1);
});

child.on("exit", (code, signal) => {
  for (const name of forwarded) process.off(name, forward);
  if (signal) {
    // Die of the same signal, so callers see how the child ended.
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});

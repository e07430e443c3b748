// `npm start`: console, REST API and MCP endpoint on one local origin (default http://127.0.0.1:8787),
// on embedded PGlite unless DATABASE_URL is set. Builds the console on first run.
import { existsSync } from "node:fs";
import path from "node:path";
import { ensureConsoleBuilt, ROOT } from "./lib.mjs";

if (!existsSync(path.join(ROOT, "node_modules"))) {
  console.error("Dependencies are missing: run `npm install` first.");
  process.exit(1);
}
ensureConsoleBuilt();

const { spawnServer } = await import("./server.mjs");
const child = await spawnServer({ env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" } });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));

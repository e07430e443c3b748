// `npm test`: lint, build (console and Worker), typecheck, then every test suite with vitest:
// unit and integration tests, the security suite, the Worker in workerd and the console in Chromium.
// On PGlite by default; on Postgres when DATABASE_URL is set (each test file makes its own database).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { ROOT, run } from "./lib.mjs";

const env = { CLOUDFLARE_CF_FETCH_ENABLED: "false", WRANGLER_SEND_METRICS: "false", NEXT_TELEMETRY_DISABLED: "1" };
const chromium = process.env.LOADOUT_CHROMIUM ?? "/usr/bin/chromium";
if (!existsSync(chromium)) {
  console.error(
    `The browser tests need Chromium at ${chromium}. On Debian or Ubuntu: sudo apt-get update && sudo apt-get install -y chromium\n` +
      "(or point LOADOUT_CHROMIUM at a Chromium binary).",
  );
  process.exit(1);
}

console.log(`▶ npm test on ${process.env.DATABASE_URL ? "Postgres (DATABASE_URL)" : "PGlite (in memory)"}`);
run("npx", ["biome", "check", "."], { env });
run("npx", ["turbo", "run", "build", "typecheck", "--output-logs=errors-only"], { env });

const report = path.join(ROOT, ".loadout", "vitest-report.json");
mkdirSync(path.dirname(report), { recursive: true });
const tests = spawnSync(
  "npx",
  ["vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...process.argv.slice(2)],
  { cwd: ROOT, stdio: "inherit", env: { ...process.env, ...env } },
);
// One plain closing line, whatever the runner prints above it.
try {
  const r = JSON.parse(readFileSync(report, "utf8"));
  const skipped = r.numPendingTests + r.numTodoTests;
  console.log(
    `\nTests: ${r.numPassedTests} passed, ${r.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ""}`,
  );
  if (r.numTotalTests === 0) {
    console.error("No test ran.");
    process.exit(1);
  }
} catch {
  console.error("The test report is missing: vitest did not finish.");
}
process.exit(tests.status ?? 1);

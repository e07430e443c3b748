import { listenProblem, parseNodeEnv } from "./entry/node-env";
import { bufferedLines, type RunningServer, startNodeServer } from "./entry/node-server";
import { humanLineLogger, jsonLineLogger, silentLogger, withSetupReminder } from "./logger";
import { databaseUnavailable } from "./services/db-errors";

// A database connection's failure that nothing awaited (the pool reconnects by itself, and the
// requests meanwhile answer `unavailable`) is logged rather than fatal. Any other unhandled
// rejection still ends the process, as Node's default would.
process.on("unhandledRejection", (reason) => {
  if (!databaseUnavailable(reason)) throw reason;
  console.error(
    `database connection failed, nothing waited on it: ${reason instanceof Error ? reason.message : String(reason)}`,
  );
});

// The embedded default: console, REST API and MCP endpoint on one local origin.
let env: ReturnType<typeof parseNodeEnv>;
try {
  env = parseNodeEnv(process.env);
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}

const lines = bufferedLines();
const logger = withSetupReminder(
  env.LOADOUT_LOG === "silent"
    ? silentLogger
    : env.LOADOUT_LOG === "json"
      ? jsonLineLogger(lines)
      : humanLineLogger(lines),
  (text) => lines(`\n${text}\n`, "info"),
);
let server: RunningServer;
try {
  server = await startNodeServer(env, { logger });
} catch (error) {
  const problem = listenProblem(error, env);
  if (!problem) throw error;
  console.error(problem);
  process.exit(1);
}
const engine =
  server.database.kind === "pglite" ? `embedded PGlite in ${env.LOADOUT_DATA_DIR}` : "Postgres (DATABASE_URL)";
console.log(`\nLoadout is running at ${server.url}  (${engine})`);
console.log(`  console  ${server.url}/`);
console.log(`  API      ${server.url}/v1   (reference ${server.url}/v1/docs)`);
console.log(`  MCP      ${server.url}/mcp`);
console.log(`  health   ${server.url}/healthz`);
if (server.setupUrl) {
  console.log(`\nNo account exists yet. Create the first one with this one-time link:\n  ${server.setupUrl}\n`);
  logger.remind(server.setupUrl);
}

/** The bound on a graceful shutdown: past it the process exits anyway, saying so. */
const SHUTDOWN_MS = 10_000;

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    const deadline = setTimeout(() => {
      console.error(`Loadout did not shut down within ${SHUTDOWN_MS / 1000} s; exiting.`);
      process.exit(1);
    }, SHUTDOWN_MS);
    deadline.unref();
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error("Loadout's shutdown failed:", error);
        process.exit(1);
      },
    );
  });
}

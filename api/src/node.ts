import { listenProblem, parseNodeEnv } from "./entry/node-env";
import { bufferedLines, type RunningServer, startNodeServer } from "./entry/node-server";
import { humanLineLogger, jsonLineLogger, silentLogger, withSetupReminder } from "./logger";

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

let closing = false;
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    if (closing) return;
    closing = true;
    void server.close().then(() => process.exit(0));
  });
}

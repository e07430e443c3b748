import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseNodeEnv } from "@loadout/api/entry/node-env";
import { type RunningServer, startNodeServer } from "@loadout/api/entry/node-server";
import { memoryLogger } from "@loadout/api/logger";
import type { OpenedDatabase } from "@loadout/db";
import { createTestDatabase } from "@loadout/db/testing";

export interface TestServer extends RunningServer {
  logs: ReturnType<typeof memoryLogger>["entries"];
}

/**
 * The real Node entry on a random loopback port, on a fresh database (PGlite, or Postgres when
 * DATABASE_URL is set) or on the caller's (which the caller closes), serving the built console
 * from web/out.
 */
export async function startTestServer(
  extraEnv: Record<string, string> = {},
  options: {
    clientMetadataFetch?: typeof fetch;
    logQuery?: (query: string) => void;
    clock?: () => Date;
    database?: OpenedDatabase;
    /**
     * Postgres's change notifications reach the server this much later, as on a loaded machine:
     * what a request reads after this instance's own write must not wait for them.
     */
    notificationDelayMs?: number;
  } = {},
): Promise<TestServer> {
  const { logQuery, database: shared, notificationDelayMs: delay, ...serverOptions } = options;
  // LOADOUT_TEST_NOTIFICATION_DELAY_MS: every test server hears late, to look for reads that wait on it.
  const notificationDelayMs = delay ?? Number(process.env.LOADOUT_TEST_NOTIFICATION_DELAY_MS ?? 0);
  const opened = shared ?? (await createTestDatabase(logQuery ? { logQuery } : {}));
  const database = notificationDelayMs > 0 ? hearLater(opened, notificationDelayMs) : opened;
  const dataDir = mkdtempSync(path.join(tmpdir(), "loadout-test-"));
  const logger = memoryLogger();
  const env = parseNodeEnv({
    LOADOUT_PORT: "0",
    LOADOUT_HOST: "127.0.0.1",
    LOADOUT_DATA_DIR: dataDir,
    LOADOUT_LOG: "silent",
    ...extraEnv,
  });
  const server = await startNodeServer(env, { database, logger, ...serverOptions });
  return {
    ...server,
    logs: logger.entries,
    async close() {
      await server.close();
      if (!shared) await opened.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The same database, its notifications delivered `ms` later. */
function hearLater(database: OpenedDatabase, ms: number): OpenedDatabase {
  const listen = database.listen;
  if (!listen) return database;
  return {
    ...database,
    listen: (channel, onMessage, onListen) =>
      listen(channel, (payload) => setTimeout(() => onMessage(payload), ms), onListen),
  };
}

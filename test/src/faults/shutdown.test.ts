/**
 * SIGTERM on the Node host (issue 21, DESIGN.md "Failure behaviour"): with an upstream session
 * open and a proxied call in flight, the process stops accepting, answers the call (an error
 * result: it was cut short), writes the call log it was still batching, closes the upstream
 * session and the database, and exits within the bound.
 */
import path from "node:path";
import { openDatabase } from "@loadout/db/open";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { addApprovedServer, signUpAccount } from "../helpers/account";
import { startEverything, type Upstream } from "../helpers/upstream";
import { type LoadoutProcess, startLoadoutProcess } from "./loadout-process";

/** The bound the entry promises (api/src/node.ts). */
const SHUTDOWN_BOUND_MS = 10_000;

let upstream: Upstream;
let app: LoadoutProcess;

beforeAll(async () => {
  upstream = await startEverything();
  // PGlite in the process's data folder, so that what it wrote can be read once it has exited.
  app = await startLoadoutProcess({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1", LOADOUT_LOG: "json" });
}, 90_000);

afterAll(async () => {
  await app?.stop();
  await upstream?.stop();
});

describe("SIGTERM", () => {
  it("drains, flushes the call log, closes the upstream session and exits within the bound", async () => {
    const account = await signUpAccount(app.url, "shutdown@example.com");
    const token = (await account.token(["mcp"])).secret;
    await addApprovedServer(account, "everything", upstream.url);
    const client = new Client({ name: "shutdown", version: "1" }, { versionNegotiation: { mode: "auto" } });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    // Opens Loadout's session with the upstream.
    const echoed = await client.callTool({ name: "everything_echo", arguments: { message: "before" } });
    expect(echoed.isError).toBeFalsy();
    expect(upstream.log()).toMatch(/Session initialized with ID/);

    // In flight when the signal comes: 30 s upstream, far past the bound.
    const long = client
      .callTool({ name: "everything_trigger-long-running-operation", arguments: { duration: 30, steps: 30 } })
      .then(
        (result) => ({ result }),
        (error: unknown) => ({ error: String(error) }),
      );
    await new Promise((r) => setTimeout(r, 500));
    // Answered just before the signal: its log row is still in the batch.
    const last = await client.callTool({ name: "everything_echo", arguments: { message: "last" } });
    expect(last.isError).toBeFalsy();

    const signalled = performance.now();
    app.child.kill("SIGTERM");
    await Promise.race([app.ended(), new Promise((r) => setTimeout(r, SHUTDOWN_BOUND_MS + 5000))]);
    const tookMs = performance.now() - signalled;
    console.log(`SIGTERM: exited after ${Math.round(tookMs)} ms`);
    expect(app.exited(), `still running after ${Math.round(tookMs)} ms:\n${app.output().slice(-2000)}`).toEqual({
      code: 0,
      signal: null,
    });
    expect(tookMs).toBeLessThan(SHUTDOWN_BOUND_MS);

    // The call in flight was answered, as an error result that says it was cut short.
    const settled = await long;
    expect(settled).toMatchObject({ result: { isError: true } });
    await client.close().catch(() => {});

    // The upstream heard its session end.
    await expect.poll(() => upstream.log(), { timeout: 2000 }).toMatch(/session termination request/);

    // The batched call log reached the database before the exit.
    const database = await openDatabase({ dataDir: path.join(app.dataDir, "pglite"), migrate: false });
    try {
      const result = await database.db.execute(
        sql`select count(*)::int as n from audit_events where action = 'mcp.call' and target_id = 'everything_echo'`,
      );
      const rows = (Array.isArray(result) ? result : (result as { rows: unknown[] }).rows) as { n: number }[];
      expect(rows[0]?.n).toBe(2);
    } finally {
      await database.close();
    }
  }, 60_000);
});

import { createServer } from "node:net";
import { connectPostgres, type OpenedDatabase } from "@loadout/db";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../app";
import { createPasswordHasher, nobleScrypt } from "../../auth/password";
import { newApiTokenSecret } from "../../auth/secrets";
import { memoryLogger } from "../../logger";
import { TEST_SCRYPT } from "../../testing";

/** A loopback port nothing listens on: connecting is refused at once, as with a stopped Postgres. */
async function refusedPort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === "object" && address ? address.port : 1));
    });
  });
}

/**
 * With the database away, each surface answers `unavailable` in its own shape, through Hono (the
 * Node host's MCP lane is held to the same answers in test/src/faults/database.test.ts, on a real
 * cluster that is stopped and started).
 */
describe("with the database away", () => {
  let database: OpenedDatabase;
  let app: ReturnType<typeof createApp>;
  const logger = memoryLogger();
  // Well formed, so that it is looked up (in the database that is away).
  const token = newApiTokenSecret();

  beforeAll(async () => {
    database = connectPostgres(`postgres://postgres@127.0.0.1:${await refusedPort()}/postgres`, { max: 2 });
    app = createApp({
      database: { acquire: () => ({ db: database.db, release: async () => {} }) },
      hasher: createPasswordHasher(nobleScrypt, TEST_SCRYPT),
      passwordDictionary: async () =>
        (await import("../../domain/accounts/common-password-dictionary")).commonPasswordDictionary,
      secretKey: "test-secret-key-0123456789abcdefghijklmnop",
      logger,
      secureCookies: false,
      clientAddress: () => "127.0.0.1",
    });
  });
  afterAll(() => database?.close());

  it("/healthz answers 503 within a second", async () => {
    const started = performance.now();
    const res = await app.request("/healthz");
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(503);
    expect((await res.json()).error.code).toBe("unavailable");
  });

  it("the REST API answers 503 unavailable in its error shape, with Retry-After", async () => {
    const res = await app.request("/v1/me", { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("2");
    const body = await res.json();
    expect(body).toEqual({
      error: { code: "unavailable", message: expect.stringContaining("database"), requestId: expect.any(String) },
    });
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|select|127\.0\.0\.1/);
  });

  it("/mcp answers a JSON-RPC error, not the REST shape", async () => {
    for (const path of ["/mcp", "/mcp/e/mep_x", "/mcp/s/me/everything"]) {
      const res = await app.request(path, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
      });
      expect(res.status, path).toBe(503);
      expect(await res.json(), path).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32050,
          message: expect.stringContaining("database"),
          data: { code: "unavailable", requestId: expect.any(String) },
        },
      });
    }
    // Logged as what it is, not as an unhandled error.
    expect(logger.entries.some((e) => e.msg === "database unavailable")).toBe(true);
    expect(logger.entries.some((e) => e.msg === "unhandled error")).toBe(false);
  });
});

import { createServer, type Server, type Socket } from "node:net";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPostgres, type Database, requestScopedPostgres } from "./client";

/** A server that accepts connections and never answers, as a database host that hangs does. */
let hung: Server;
const sockets: Socket[] = [];
let port = 0;

beforeAll(async () => {
  hung = createServer((socket) => {
    sockets.push(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => hung.listen(0, "127.0.0.1", () => resolve()));
  const address = hung.address();
  port = typeof address === "object" && address ? address.port : 0;
});
afterAll(async () => {
  for (const socket of sockets) socket.destroy();
  await new Promise((r) => hung.close(r));
});

describe("connectPostgres against a database that does not answer", () => {
  it("fails every query within the acquire bound, however many wait behind the pool", async () => {
    const opened = connectPostgres(`postgres://postgres@127.0.0.1:${port}/postgres`, {
      max: 2,
      connectTimeout: 1,
      acquireTimeout: 1.5,
    });
    try {
      const started = performance.now();
      // Two connect attempts at a time, a second each: unbounded, the last of eight would wait four.
      const outcomes = await Promise.all(
        Array.from({ length: 8 }, () =>
          opened.db.execute(sql`select 1`).then(
            () => ({ ms: performance.now() - started, code: "answered" }),
            (error: { code?: string; cause?: { code?: string } }) => ({
              ms: performance.now() - started,
              code: error.cause?.code ?? error.code ?? "none",
            }),
          ),
        ),
      );
      expect(outcomes.map((o) => o.code)).toEqual(Array(8).fill("CONNECT_TIMEOUT"));
      expect(Math.max(...outcomes.map((o) => o.ms))).toBeLessThan(2500);
    } finally {
      await opened.close();
    }
  });
});

describe("requestScopedPostgres: a handle per request, its connection closed at release", () => {
  const url = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  const backend = async (db: Database) =>
    ((await db.execute(sql`select pg_backend_pid() as pid`)) as unknown as { pid: number }[])[0]?.pid;

  it("hands a released handle to the next request, which connects anew", async () => {
    const handles = requestScopedPostgres(url);
    const first = handles.acquire();
    const pid = await backend(first.db);
    await first.release();
    const second = handles.acquire();
    expect(second.db).toBe(first.db);
    const next = await backend(second.db);
    expect(next).toEqual(expect.any(Number));
    expect(next).not.toBe(pid);
    await second.release();
  });

  it("keeps a handle usable when its request made no query", async () => {
    const handles = requestScopedPostgres(url);
    const unused = handles.acquire();
    await unused.release();
    const again = handles.acquire();
    expect(again.db).toBe(unused.db);
    // Left among postgres.js's ended connections, this query would wait for the acquire bound and fail.
    const started = performance.now();
    expect(await backend(again.db)).toEqual(expect.any(Number));
    expect(performance.now() - started).toBeLessThan(1000);
    await again.release();
  });

  it("gives concurrent requests handles of their own", async () => {
    const handles = requestScopedPostgres(url);
    const a = handles.acquire();
    const b = handles.acquire();
    expect(a.db).not.toBe(b.db);
    const [pa, pb] = await Promise.all([backend(a.db), backend(b.db)]);
    expect(pa).not.toBe(pb);
    await Promise.all([a.release(), b.release()]);
  });
});

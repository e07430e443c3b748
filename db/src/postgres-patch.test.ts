import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * patches/postgres+3.4.9.patch fixes postgres.js's internal queue: under sustained load above the
 * pool size each pipelined query left a hole that every later lookup scanned, so throughput fell
 * steadily and memory grew. It also keeps a closed connection from being written to (below).
 * `npm install` applies it (postinstall: patch-package); this guards that.
 */
describe("the postgres.js queue patch", () => {
  const entry = createRequire(import.meta.url).resolve("postgres");
  const root = entry.slice(0, entry.lastIndexOf(`${path.sep}postgres${path.sep}`) + `${path.sep}postgres`.length);
  for (const build of ["src", "cf/src", "cjs/src"]) {
    it(`is applied to ${build}/queue.js`, async () => {
      const file = path.join(root, build, "queue.js");
      expect(readFileSync(file, "utf8")).toContain("xs.indexOf(x, index)");
    });
  }

  // The rest of the patch: a transaction's rollback sent after its connection closed wrote to a
  // null socket inside a setImmediate and ended the process (issue 21; porsager/postgres#1154,
  // #1208). test/src/faults/database.test.ts stops a real cluster under load to prove the fix.
  for (const build of ["src", "cf/src", "cjs/src"]) {
    it(`refuses to write to a closed connection in ${build}`, () => {
      const connection = readFileSync(path.join(root, build, "connection.js"), "utf8");
      expect(connection).toContain("return (queryError(q, Errors.connection('CONNECTION_CLOSED', options)), true)");
      // Reset wherever the timer is cleared: nextWrite (twice) and both teardowns, terminate and closed.
      expect(connection.match(/clearImmediate\(nextWriteTimer\)\n\s+chunk = nextWriteTimer = null/g)).toHaveLength(4);
      const index = readFileSync(path.join(root, build, "index.js"), "utf8");
      expect(index).toContain("return q.reject(closedWith)");
      // And the acquire bound db/src/client.ts sets (tested in client.test.ts).
      expect(index).toContain("acquire_timeout : null");
    });
  }

  it("keeps the queue correct through many pipelined cycles", async () => {
    const { default: Queue } = (await import(path.join(root, "src/queue.js"))) as {
      default: (initial?: unknown[]) => {
        length: number;
        push(x: unknown): unknown;
        shift(): unknown;
        remove(x: unknown): unknown;
      };
    };
    const q = Queue();
    const items = ["a", "b", "c", "d"];
    for (const item of items) q.push(item);
    // What postgres.js does when it pipelines onto a busy connection: shift, look it up, push back.
    for (let i = 0; i < 100_000; i++) {
      const next = q.shift();
      expect(q.remove(next)).toBeNull();
      q.push(next);
    }
    expect(q.length).toBe(4);
    expect(q.remove("c")).toBe("c");
    expect(q.length).toBe(3);
    expect([q.shift(), q.shift(), q.shift()].sort()).toEqual(["a", "b", "d"]);
    expect(q.length).toBe(0);
  });
});

import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * patches/postgres+3.4.9.patch fixes postgres.js's internal queue: under sustained load above the
 * pool size each pipelined query left a hole that every later lookup scanned, so throughput fell
 * steadily and memory grew. `npm install` applies it (postinstall: patch-package); this guards that.
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

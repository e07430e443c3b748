import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { bufferedLines } from "./node-server";

describe("bufferedLines", () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function sink() {
    const writes: string[] = [];
    return { writes, stream: { write: (text: string) => writes.push(text) } };
  }

  it("writes the lines of 25 ms together, in order", () => {
    const out = sink();
    const err = sink();
    const write = bufferedLines(out.stream, err.stream);
    write('{"n":1}', "info");
    write('{"n":2}', "warn");
    expect(out.writes).toEqual([]);
    vi.advanceTimersByTime(25);
    expect(out.writes).toEqual(['{"n":1}\n{"n":2}\n']);
  });

  it("writes an error at once, after the lines before it", () => {
    const out = sink();
    const err = sink();
    const write = bufferedLines(out.stream, err.stream);
    write('{"n":1}', "info");
    write('{"boom":true}', "error");
    expect(out.writes).toEqual(['{"n":1}\n']);
    expect(err.writes).toEqual(['{"boom":true}\n']);
    vi.advanceTimersByTime(100);
    expect(out.writes).toHaveLength(1);
  });

  it("does not hold more than 16 KiB", () => {
    const out = sink();
    const write = bufferedLines(out.stream, sink().stream);
    const line = `{"pad":"${"x".repeat(1000)}"}`;
    for (let i = 0; i < 17; i++) write(line, "info");
    expect(out.writes.length).toBe(1);
    expect(out.writes[0]?.match(/\n/g)?.length).toBe(17);
  });
});

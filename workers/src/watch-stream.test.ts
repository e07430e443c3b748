import { describe, expect, it } from "vitest";
import { UpstreamRpcError } from "./outcomes";
import { readWatch, watchStream } from "./watch-stream";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("a resource watch over a byte stream", () => {
  it("starts, carries each update, and stops the watch when the reader stops", async () => {
    let tell: ((params: Record<string, unknown>) => void) | undefined;
    let stopped = 0;
    let ended = 0;
    const stream = watchStream(
      async (onUpdated) => {
        tell = onUpdated;
        return () => {
          stopped++;
        };
      },
      () => {
        ended++;
      },
    );
    const heard: unknown[] = [];
    const stop = await readWatch(stream, (params) => heard.push(params));
    tell?.({ uri: "memo://a", title: "A" });
    tell?.({ uri: "memo://b" });
    await expect.poll(() => heard).toEqual([{ uri: "memo://a", title: "A" }, { uri: "memo://b" }]);
    stop();
    await expect.poll(() => stopped).toBe(1);
    expect(ended).toBe(1);
    tell?.({ uri: "memo://c" });
    await sleep(10);
    expect(heard).toHaveLength(2);
  });

  it("throws the pool's own error when the subscription cannot start", async () => {
    let ended = 0;
    const stream = watchStream(
      async () => {
        throw new UpstreamRpcError(-32602, "no such resource");
      },
      () => {
        ended++;
      },
    );
    const failed = readWatch(stream, () => {});
    await expect(failed).rejects.toBeInstanceOf(UpstreamRpcError);
    await expect(failed).rejects.toThrow("no such resource");
    expect(ended).toBe(1);
  });
});

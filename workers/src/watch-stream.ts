import type { ResourceUpdated } from "./pool";
import { fromWire, toWire, type WireError } from "./wire";

/**
 * A resource watch as it crosses Workers RPC. A callback stub cannot be called back once the RPC
 * that carried it returned, and the session object hears updates long after; a byte stream can
 * stay open. So the object answers a watch with a stream of JSON lines: first whether the
 * subscription started (`{"ok":true}` or `{"error":…}`, the pool's error as data), then one line
 * per update's params. Cancelling the stream (the listen stream closed) stops the watch.
 */
export function watchStream(
  start: (onUpdated: ResourceUpdated) => Promise<() => void>,
  ended: () => void = () => {},
  /** Told how to stop the watch from outside (an `unwatch` RPC, see proxy-worker.ts). */
  stoppable: (stop: () => void) => void = () => {},
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let stop: (() => void) | undefined;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    stop?.();
    ended();
  };
  stoppable(finish);
  return new ReadableStream<Uint8Array>({
    async start(controller) {
      const line = (value: unknown) => controller.enqueue(encoder.encode(`${JSON.stringify(value)}\n`));
      try {
        stop = await start((params) => {
          if (!done) line(params);
        });
        if (done) stop();
        else line({ ok: true });
      } catch (error) {
        line({ error: toWire(error) });
        controller.close();
        finish();
      }
    },
    cancel: finish,
  });
}

/**
 * The watch a stream of `watchStream` carries: resolves once the subscription started (how to stop
 * it) or throws the pool's error, then hands each update to `onUpdated` until stopped.
 */
export async function readWatch(stream: ReadableStream<Uint8Array>, onUpdated: ResourceUpdated): Promise<() => void> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  const nextLine = async (): Promise<string | null> => {
    for (;;) {
      const newline = buffered.indexOf("\n");
      if (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        return line;
      }
      const { done, value } = await reader.read();
      if (done) return null;
      buffered += decoder.decode(value, { stream: true });
    }
  };
  const first = await nextLine();
  const opened = first ? (JSON.parse(first) as { ok?: true; error?: WireError }) : null;
  if (!opened?.ok) {
    reader.cancel().catch(() => {});
    throw opened?.error ? fromWire(opened.error) : new Error("the resource watch ended before it started");
  }
  let stopped = false;
  void (async () => {
    try {
      for (let line = await nextLine(); line !== null && !stopped; line = await nextLine())
        if (line) onUpdated(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // The stream broke (the object went away): the watch has ended.
    }
  })();
  return () => {
    stopped = true;
    reader.cancel().catch(() => {});
  };
}

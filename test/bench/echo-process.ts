/**
 * The proxy bench's light upstream in a process of its own, as an upstream is in use and in the
 * peers' setup (BENCHMARKS.md). Hosted in the bench's own process, a direct call skipped the two
 * cross-process wake-ups that every proxied call pays on its extra hop, which the bench then
 * counted as Loadout's added latency.
 *
 * Run as a child: prints `{"url": …}` once listening; answers a `requests` line on stdin with the
 * count of HTTP requests served so far; stops on `stop` or when stdin closes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { startStatelessUpstream } from "../src/helpers/upstreams";

export interface EchoProcess {
  url: string;
  /** HTTP requests the upstream has served so far. */
  requests(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the upstream in a child process (Node with tsx, like the server under test). */
export async function startEchoProcess(name: string): Promise<EchoProcess> {
  const child: ChildProcess = spawn(process.execPath, ["--import", "tsx", fileURLToPath(import.meta.url), name], {
    stdio: ["pipe", "pipe", "inherit"],
  });
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const waiting: Array<(line: string) => void> = [];
  lines.on("line", (line) => waiting.shift()?.(line));
  const next = () =>
    new Promise<string>((resolve, reject) => {
      waiting.push(resolve);
      child.once("exit", (code) => reject(new Error(`the echo upstream exited (${code})`)));
    });
  const { url } = JSON.parse(await next()) as { url: string };
  return {
    url,
    async requests() {
      const answer = next();
      child.stdin?.write("requests\n");
      return Number(await answer);
    },
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.stdin?.end("stop\n");
      await exited;
    },
  };
}

// As the child: serve until told to stop.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const upstream = await startStatelessUpstream({ name: process.argv[2] ?? "bench-echo" });
  process.stdout.write(`${JSON.stringify({ url: upstream.url })}\n`);
  const commands = createInterface({ input: process.stdin });
  const stop = async () => {
    await upstream.stop();
    process.exit(0);
  };
  commands.on("line", (line) => {
    if (line === "requests") process.stdout.write(`${upstream.requests()}\n`);
    if (line === "stop") void stop();
  });
  commands.on("close", () => void stop());
}

import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";

export interface Upstream {
  url: string;
  /** What the server printed so far (server-everything logs each session it opens and ends). */
  log(): string;
  stop(): Promise<void>;
}

/**
 * @modelcontextprotocol/server-everything on a random loopback port: sessionful streamable HTTP
 * (2025-11-25) at /mcp, or the legacy HTTP+SSE transport at /sse.
 */
export async function startEverything(transport: "streamableHttp" | "sse" = "streamableHttp"): Promise<Upstream> {
  const entry = createRequire(import.meta.url).resolve("@modelcontextprotocol/server-everything/package.json");
  const script = path.join(path.dirname(entry), "dist", "index.js");
  // Below the kernel's ephemeral range (32768 on), which listeners on port 0 and outgoing
  // connections share, and clear of the machine's services (RabbitMQ's 25672).
  const port = 26_000 + Math.floor(Math.random() * 6_000);
  // A rejection the fixture leaves unhandled (its timers write to sessions that may be gone) is
  // not what a test here is about: it warns instead of ending the upstream under the test.
  const child: ChildProcess = spawn(process.execPath, ["--unhandled-rejections=warn", script, transport], {
    env: { ...process.env, PORT: String(port) },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let printed = "";
  const keep = (chunk: Buffer) => {
    printed += chunk.toString();
  };
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("server-everything did not start")), 20_000);
    const onData = (chunk: Buffer) => {
      if (/listening|running on port/i.test(chunk.toString())) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`server-everything exited (${code}): ${printed.slice(-2000)}`)));
  });
  let stopping = false;
  // A server that dies under a test says so, with what it printed: the test then fails on the
  // upstream it lost, and this tells why.
  child.once("exit", (code, signal) => {
    if (!stopping)
      process.stderr.write(`server-everything on port ${port} exited (${code ?? signal}):\n${printed.slice(-4000)}\n`);
  });
  return {
    url: `http://127.0.0.1:${port}/${transport === "sse" ? "sse" : "mcp"}`,
    log: () => printed,
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

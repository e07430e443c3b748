/**
 * The floor under the proxy bench's added latency: the least any Node gateway adds on this
 * machine. A forwarder with none of Loadout's work (no token, no lookup, no checks, no log):
 * Node's HTTP server reads the JSON-RPC body and parses it, undici's dispatcher (the layer Loadout
 * uses too, under `request`) sends it to the upstream on a kept-alive connection, and the answer is
 * read whole, parsed and written back. It runs in a
 * process of its own, like the server under test and the upstream, so that the extra hop costs
 * it what it costs Loadout. Machines differ by more than the targets' margins (the same calls
 * take twice as long on some days' machines as on others'), so the bench prints Loadout's added
 * latency beside this one's.
 *
 * `transparent` (the peers' setup, whose upstream keeps 2025 sessions and answers in event
 * streams): every request is passed on as it came, any method, every header but the hop-by-hop
 * ones, the body streamed both ways, nothing parsed. That is what a gateway that reads nothing of
 * MCP costs, the least of all.
 *
 * `tcp`: not a gateway at all, one more loopback hop through a process of its own: each connection
 * is piped byte for byte to the upstream, no HTTP parsed or written. What the extra hop costs
 * alone, beside what Node's HTTP server and client cost on top of it (the other modes).
 *
 * Run as a child: prints `{"url": …}` once listening; stops when stdin closes.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer } from "node:net";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Agent } from "undici";

export interface FloorProxy {
  url: string;
  /** The forwarder's process, whose CPU time a bench may read. */
  pid: number | undefined;
  stop(): Promise<void>;
}

/** Starts the forwarder to `upstream` in a child process (Node with tsx, like the server under test). */
export async function startFloorProxy(
  upstream: string,
  mode: "json" | "transparent" | "tcp" = "json",
): Promise<FloorProxy> {
  const child: ChildProcess = spawn(
    process.execPath,
    ["--import", "tsx", fileURLToPath(import.meta.url), upstream, mode],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).once("line", resolve);
    child.once("exit", (code) => reject(new Error(`the floor proxy exited (${code})`)));
  });
  const { url } = JSON.parse(line) as { url: string };
  return {
    url,
    pid: child.pid,
    async stop() {
      const exited = new Promise((r) => child.once("exit", r));
      child.stdin?.end();
      await exited;
    },
  };
}

/** Headers of one connection, not of the request (RFC 9110 §7.6.1), which a forwarder does not pass on. */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "transfer-encoding",
  "te",
  "upgrade",
  "host",
  "proxy-connection",
]);

/** The headers a 2026-07-28 call carries that the upstream reads. */
const PASSED = ["content-type", "accept", "mcp-protocol-version", "mcp-method", "mcp-name"];

// As the child: forward until stdin closes.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const upstream = process.argv[2] ?? "";
  // A connection idle through another side's load (5 s and more) is not reused: the upstream's
  // own keep-alive (Node's 5 s) may close it as a call goes out, which a bare forwarder cannot
  // retry (it streams the body). Seen once: a 502 "other side closed" that ended the bench.
  const dispatcher = new Agent({ keepAliveTimeout: 2_000, keepAliveMaxTimeout: 2_000 });
  const { origin, pathname } = new URL(upstream);
  const post = (headers: Record<string, string>, body: string) =>
    new Promise<{ status: number; text: string }>((resolve, reject) => {
      let status = 0;
      const chunks: Buffer[] = [];
      dispatcher.dispatch(
        { origin, path: pathname, method: "POST", headers, body },
        {
          onConnect() {},
          onError: reject,
          onHeaders(code) {
            status = code;
            return true;
          },
          onData(chunk) {
            chunks.push(chunk);
            return true;
          },
          onComplete() {
            resolve({ status, text: Buffer.concat(chunks).toString("utf8") });
          },
        },
      );
    });
  const forwardJson = (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", async () => {
      try {
        const message = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>;
        const headers: Record<string, string> = {};
        for (const name of PASSED) {
          const value = req.headers[name];
          if (typeof value === "string") headers[name] = value;
        }
        const answer = await post(headers, JSON.stringify(message));
        const text = JSON.stringify(JSON.parse(answer.text));
        res.writeHead(answer.status, {
          "content-type": "application/json",
          "content-length": String(Buffer.byteLength(text)),
        });
        res.end(text);
      } catch (error) {
        res.writeHead(502, { "content-type": "text/plain" }).end(String(error));
      }
    });
  };
  const forwardAsIs = (req: IncomingMessage, res: ServerResponse) => {
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers))
      if (typeof value === "string" && !HOP_BY_HOP.has(name)) headers[name] = value;
    const hasBody = req.method !== "GET" && req.method !== "HEAD" && req.method !== "DELETE";
    let abort: ((reason?: Error) => void) | undefined;
    res.once("close", () => {
      if (!res.writableFinished) abort?.(new Error("the client went away"));
    });
    dispatcher.dispatch(
      { origin, path: pathname, method: req.method as "POST", headers, body: hasBody ? req : null },
      {
        onConnect(cancel) {
          abort = cancel;
        },
        onError(error) {
          if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(String(error));
          else res.destroy(error);
        },
        onHeaders(status, raw, resume) {
          const answer: string[] = [];
          for (let i = 0; i + 1 < raw.length; i += 2) {
            const name = String(raw[i]).toLowerCase();
            if (!HOP_BY_HOP.has(name)) answer.push(name, String(raw[i + 1]));
          }
          res.writeHead(status, answer);
          res.flushHeaders();
          res.on("drain", () => resume());
          return true;
        },
        onData(chunk) {
          return res.write(chunk);
        },
        onComplete() {
          res.end();
        },
      },
    );
  };
  const mode = process.argv[3];
  const pipeAsIs = createTcpServer((client) => {
    const server = connect(Number(new URL(upstream).port), new URL(upstream).hostname);
    client.setNoDelay(true);
    server.setNoDelay(true);
    client.pipe(server).on("error", () => client.destroy());
    server.pipe(client).on("error", () => server.destroy());
    client.on("error", () => server.destroy());
    server.on("error", () => client.destroy());
  });
  const server = mode === "tcp" ? pipeAsIs : createServer(mode === "transparent" ? forwardAsIs : forwardJson);
  server.listen(0, "127.0.0.1", () => {
    // Only the hop keeps the upstream's path: the HTTP modes forward any path to it.
    const at = `http://127.0.0.1:${(server.address() as AddressInfo).port}${mode === "tcp" ? pathname : "/"}`;
    process.stdout.write(`${JSON.stringify({ url: at })}\n`);
  });
  createInterface({ input: process.stdin }).on("close", () => {
    server.close();
    void dispatcher.close().then(() => process.exit(0));
  });
}

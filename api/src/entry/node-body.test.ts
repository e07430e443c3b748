import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors";
import { NodeBody } from "./node-body";

/** What the server saw of each request's body: its text, or the error's message. */
type Seen = { text: string; ms: number; atEnd: boolean } | { error: string };

let server: Server;
let port: number;
const seen: Seen[] = [];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const body = new NodeBody(req, res, `http://localhost${req.url}`);
    const limit = Number(req.headers["x-limit"] ?? 1024);
    const started = performance.now();
    body.read(limit).then(
      (bytes) => {
        seen.push({
          text: Buffer.from(bytes).toString("utf8"),
          ms: performance.now() - started,
          // Whether the request's "end" had been emitted when the read resolved.
          atEnd: req.readableEnded,
        });
        res.end("ok");
      },
      (error: Error) => {
        seen.push({ error: error instanceof AppError ? error.code : error.message });
        if (!res.destroyed) res.writeHead(413, { connection: "close" }).end();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

/** Writes `parts` on a raw connection, `gapMs` apart, and resolves with what the server then saw. */
async function send(parts: string[], gapMs = 0, close = false): Promise<Seen> {
  const before = seen.length;
  const socket = connect(port, "127.0.0.1");
  socket.on("error", () => {});
  await new Promise((resolve) => socket.once("connect", resolve));
  for (const [i, part] of parts.entries()) {
    if (i > 0 && gapMs) await new Promise((r) => setTimeout(r, gapMs));
    socket.write(part);
  }
  if (close) socket.destroy();
  const until = Date.now() + 5_000;
  while (seen.length === before && Date.now() < until) await new Promise((r) => setTimeout(r, 5));
  socket.destroy();
  return seen[before] ?? { error: "nothing seen" };
}

const head = (headers: string) => `POST /mcp HTTP/1.1\r\nHost: localhost\r\n${headers}\r\n`;

describe("NodeBody.read", () => {
  it("reads a body of its declared length whole, sent in one piece, as soon as it is there (before its end)", async () => {
    const answer = await send([`${head("Content-Length: 13\r\n")}{"jsonrpc":1}`]);
    expect(answer).toEqual({ text: '{"jsonrpc":1}', ms: expect.any(Number), atEnd: false });
  });

  it("waits for the rest of a declared body sent in pieces, and reads it whole", async () => {
    const answer = await send([`${head("Content-Length: 10\r\n")}01234`, "56789"], 60);
    expect(answer).toMatchObject({ text: "0123456789" });
    // Read when the second piece came, not at the first.
    expect((answer as { ms: number }).ms).toBeGreaterThanOrEqual(40);
  });

  it("reads a chunked body (no declared length) at its end", async () => {
    const answer = await send([`${head("Transfer-Encoding: chunked\r\n")}3\r\nabc\r\n`, "2\r\nde\r\n0\r\n\r\n"], 30);
    expect(answer).toMatchObject({ text: "abcde", atEnd: true });
  });

  it("reads an empty body", async () => {
    expect(await send([head("Content-Length: 0\r\n")])).toMatchObject({ text: "" });
  });

  it("refuses a body declared past the limit before any of it arrives", async () => {
    expect(await send([head("Content-Length: 2000\r\nX-Limit: 100\r\n")])).toEqual({ error: "payload_too_large" });
  });

  it("refuses a chunked body once it passes the limit", async () => {
    const chunk = "x".repeat(80);
    const answer = await send([
      `${head("Transfer-Encoding: chunked\r\nX-Limit: 100\r\n")}50\r\n${chunk}\r\n50\r\n${chunk}\r\n`,
    ]);
    expect(answer).toEqual({ error: "payload_too_large" });
  });

  it("fails the read of a client gone before its declared body arrived whole", async () => {
    const answer = await send([`${head("Content-Length: 10\r\n")}01234`], 0, true);
    // Node's own "aborted", which comes before the close this class would say it with.
    expect(answer).toEqual({ error: "aborted" });
  });
});

import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Cancellation } from "@loadout/workers";
import { Agent } from "undici";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dispatchedPost } from "./dispatched-post";

type Route = (req: IncomingMessage, res: ServerResponse, body: string) => void;

const routes = new Map<string, Route>();
/** What the server heard: path with query, body, and whether the client went away first. */
const heard: { path: string; body: string; gone: boolean }[] = [];
let server: Server;
let base: string;
const agent = new Agent({ keepAliveTimeout: 10_000 });
const post = dispatchedPost(agent);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = { path: req.url ?? "", body: Buffer.concat(chunks).toString("utf8"), gone: false };
      heard.push(entry);
      res.on("close", () => {
        if (!res.writableFinished) entry.gone = true;
      });
      const route = routes.get((req.url ?? "").split("?")[0] ?? "");
      if (route) route(req, res, entry.body);
      else res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  routes.set("/json", (_req, res, body) => {
    // The answer in three writes, so that it arrives in more than one chunk.
    const text = JSON.stringify({ echoed: body, note: "é".repeat(5_000) });
    res.writeHead(200, { "Content-Type": "application/json; charset=utf-8" });
    res.write(text.slice(0, 10));
    setTimeout(() => {
      res.write(text.slice(10, 4_000));
      res.end(text.slice(4_000));
    }, 5);
  });
  routes.set("/stream", (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    let i = 0;
    const next = () => {
      // 400 events of 1 KiB each, written as fast as the socket takes them.
      while (i < 400) {
        const more = res.write(`data: ${String(i++).padStart(1024, "0")}\n\n`);
        if (!more) return void res.once("drain", next);
      }
      res.end();
    };
    next();
  });
  routes.set("/hang", () => {});
  routes.set("/slow-body", (_req, res) => {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.write("data: first\n\n");
  });
  routes.set("/drop", (_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
    res.write('{"partial":');
    setTimeout(() => res.socket?.destroy(), 5);
  });
  routes.set("/hints", (_req, res) => {
    res.writeEarlyHints({ link: "</style.css>; rel=preload; as=style" });
    res.writeHead(201, { "content-type": "application/json" });
    res.end('{"after":"hints"}');
  });
});

afterAll(async () => {
  await agent.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const init = (body: string, cancellation = new Cancellation()) => ({
  headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
  body,
  cancellation,
});

async function chunksOf(body: AsyncIterable<Uint8Array>, slow = false): Promise<string> {
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of body) {
    text += decoder.decode(chunk, { stream: true });
    if (slow) await sleep(1);
  }
  return text + decoder.decode();
}

describe("dispatchedPost", () => {
  it("sends the body to the URL's path and query, and reads a JSON answer in many chunks whole", async () => {
    const answer = await post(`${base}/json?x=1&y=%20`, init('{"hello":"wörld"}'));
    expect(answer.status).toBe(200);
    expect(answer.contentType).toBe("application/json; charset=utf-8");
    const parsed = JSON.parse((await answer.body.text?.()) ?? "") as { echoed: string; note: string };
    expect(parsed.echoed).toBe('{"hello":"wörld"}');
    expect(parsed.note).toBe("é".repeat(5_000));
    expect(heard.at(-1)?.path).toBe("/json?x=1&y=%20");
    // The same URL again, and another path on the same origin: each goes where it names.
    await (await post(`${base}/json?x=1&y=%20`, init("{}"))).body.text?.();
    expect((await post(`${base}/nowhere`, init("{}"))).status).toBe(404);
    expect(heard.at(-1)?.path).toBe("/nowhere");
  });

  it("hands on an event stream's chunks in order, pausing for a reader that falls behind", async () => {
    const answer = await post(`${base}/stream`, init("{}"));
    expect(answer.contentType).toBe("text/event-stream");
    const events = (await chunksOf(answer.body, true)).split("\n\n").filter(Boolean);
    expect(events).toHaveLength(400);
    expect(events.every((e, i) => e === `data: ${String(i).padStart(1024, "0")}`)).toBe(true);
  });

  it("skips an interim answer (103 Early Hints) and reads the final one", async () => {
    const answer = await post(`${base}/hints`, init("{}"));
    expect(answer.status).toBe(201);
    expect(answer.contentType).toBe("application/json");
    expect(await answer.body.text?.()).toBe('{"after":"hints"}');
  });

  it("sends nothing when the call was already given up on", async () => {
    const cancellation = new Cancellation();
    cancellation.cancel(new Error("given up before sending"));
    const before = heard.length;
    await expect(post(`${base}/json`, init("{}", cancellation))).rejects.toThrow("given up before sending");
    await sleep(20);
    expect(heard.length).toBe(before);
  });

  it("gives up on a server that never answers when cancelled, and closes the request", async () => {
    const cancellation = new Cancellation();
    const pending = post(`${base}/hang`, init('{"wait":true}', cancellation));
    await sleep(30);
    cancellation.cancel(new Error("timed out"));
    await expect(pending).rejects.toThrow("timed out");
    await sleep(30);
    const entry = heard.findLast((e) => e.path === "/hang");
    expect(entry?.gone).toBe(true);
  });

  it("fails the reader of a body given up on midway", async () => {
    const cancellation = new Cancellation();
    const answer = await post(`${base}/slow-body`, init("{}", cancellation));
    const chunks = answer.body[Symbol.asyncIterator]();
    const first = await chunks.next();
    expect(new TextDecoder().decode(first.value)).toBe("data: first\n\n");
    setTimeout(() => cancellation.cancel(new Error("cut")), 10);
    await expect(chunks.next()).rejects.toThrow("cut");
  });

  it("fails the reader of a body whose connection drops", async () => {
    const answer = await post(`${base}/drop`, init("{}"));
    expect(answer.status).toBe(200);
    await expect(answer.body.text?.()).rejects.toThrow();
  });

  it("gives up on a request still waiting for a connection, and sends it nowhere", async () => {
    // One connection to this origin, held by a hanging request: the next one queues behind it.
    const single = new Agent({ connections: 1 });
    const queued = dispatchedPost(single);
    const hold = new Cancellation();
    const holding = queued(`${base}/hang`, init('{"hold":1}', hold));
    const cancellation = new Cancellation();
    const waiting = queued(`${base}/json`, init('{"queued":1}', cancellation));
    await sleep(20);
    cancellation.cancel(new Error("gave up in the queue"));
    await expect(waiting).rejects.toThrow("gave up in the queue");
    hold.cancel(new Error("done holding"));
    await expect(holding).rejects.toThrow("done holding");
    await sleep(20);
    expect(heard.some((e) => e.body === '{"queued":1}')).toBe(false);
    await single.close();
  });

  it("rejects when nothing listens at the URL", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(post(`http://127.0.0.1:${port}/`, init("{}"))).rejects.toThrow(/ECONNREFUSED/);
  });
});

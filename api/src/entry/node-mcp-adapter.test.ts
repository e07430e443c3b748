import { createServer, type Server } from "node:http";
import { type AddressInfo, connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { McpServe } from "../mcp/pipeline";
import { createTestApp, type TestApp, TestUser } from "../testing";
import { nodeMcpLane } from "./node-mcp-adapter";

/**
 * The lane alone, with nothing behind it: what it takes is answered by the app's endpoint, and
 * what it leaves to Hono reaches the fallback (a 599 here). test/src/mcp/fast-lane.test.ts holds
 * its answers to Hono's.
 */
let t: TestApp;
let server: Server;
let base: string;
let secret: string;
/** For each answer (by request id): how many log entries there were when it was sent. */
const logsWhenSent = new Map<string, number>();

const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "lane-test", version: "1" },
};
const call = (name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, method: "tools/call", params: { name, arguments: args, _meta: META } });
const headers = (token?: string) => ({
  ...(token ? { authorization: `Bearer ${token}` } : {}),
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": "skills",
});

/** A plain `skills list` call with the test's token, through the lane at `origin`. */
const listSkills = (origin: string) =>
  fetch(`${origin}/mcp`, { method: "POST", headers: headers(secret), body: call("skills", { action: "list" }) });

/** A POST to /mcp written by hand (for what fetch will not send), its head and the start of its body. */
function rawRequest(port: number, head: string[], bodyStart: string): string {
  return [`POST /mcp HTTP/1.1`, `host: 127.0.0.1:${port}`, ...head, "", bodyStart].join("\r\n");
}
const lines = (pairs: Record<string, string>) => Object.entries(pairs).map(([name, value]) => `${name}: ${value}`);

/** A server on the lane in front of the app, whose endpoint waits for `gate` before it runs. */
async function gatedServer(gate: Promise<void>) {
  const parts = t.app.mcpLane;
  let served: () => void = () => {};
  const done = new Promise<void>((resolve) => {
    served = resolve;
  });
  const lane = nodeMcpLane({
    serve: async (...args: Parameters<McpServe>) => {
      await gate;
      try {
        return await parts.serve(...args);
      } finally {
        served();
      }
    },
    scope: parts.scope,
    securityHeaders: parts.securityHeaders,
  });
  const gated = createServer((req, res) => {
    if (!lane(req, res)) res.writeHead(599).end();
  });
  await new Promise<void>((resolve) => gated.listen(0, "127.0.0.1", resolve));
  return { server: gated, port: (gated.address() as AddressInfo).port, done };
}

beforeAll(async () => {
  t = await createTestApp();
  const ada = await TestUser.signUp(t.app, "ada@example.com");
  secret = (await ada.createToken({ name: "lane", scopes: ["mcp"] })).secret;
  const lane = nodeMcpLane(t.app.mcpLane);
  server = createServer((req, res) => {
    // The lane passes its headers to writeHead as name-value pairs (where getHeader cannot see
    // them), then ends.
    let requestId = "";
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => typeof res;
    res.writeHead = ((...args: unknown[]) => {
      const pairs = Array.isArray(args[1]) ? (args[1] as string[]) : [];
      requestId = String(pairs[pairs.indexOf("x-request-id") + 1]);
      return writeHead(...args);
    }) as typeof res.writeHead;
    const end = res.end.bind(res) as (...args: unknown[]) => typeof res;
    res.end = ((...args: unknown[]) => {
      logsWhenSent.set(requestId, t.logs.length);
      return end(...args);
    }) as typeof res.end;
    if (!lane(req, res)) res.writeHead(599).end("left to Hono");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await t?.close();
});

describe("the Node host's MCP lane", () => {
  it("answers a call through the endpoint, with the request scope's and the security headers", async () => {
    const res = await listSkills(base);
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { id: unknown; result?: { content?: unknown[] } };
    expect(answer.id).toBe(7);
    expect(Array.isArray(answer.result?.content)).toBe(true);
    expect(res.headers.get("x-request-id")).toMatch(/^req_/);
    expect(res.headers.get("server-timing")).toMatch(/^app;dur=[\d.]+, lane;desc="fast"$/);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(t.logs.some((l) => l.msg === "request" && l.path === "/mcp" && l.status === 200)).toBe(true);
  });

  it("reads a repeated header as web Headers do (joined), not as Node's headers object (first only)", async () => {
    const { port } = server.address() as AddressInfo;
    const body = call("skills", { action: "list" });
    const head = [
      ...lines(headers(secret)),
      // The same token twice: Hono reads "Bearer …, Bearer …", which no token matches.
      `authorization: Bearer ${secret}`,
      `content-length: ${Buffer.byteLength(body)}`,
      "connection: close",
    ];
    const socket = connect(port, "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk) => {
      answer += chunk.toString();
    });
    const closed = new Promise((resolve) => socket.once("close", resolve));
    socket.write(rawRequest(port, head, body));
    await closed;
    expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 401 Unauthorized");
    // Once only, the same token is taken.
    const once = await fetch(`${base}/mcp`, { method: "POST", headers: headers(secret), body });
    expect(once.status).toBe(200);
  });

  it("sends the answer before its log line (and the deferred work), which are not on its path", async () => {
    const res = await listSkills(base);
    expect(res.status).toBe(200);
    await res.text();
    const id = res.headers.get("x-request-id") ?? "";
    const line = t.logs.findIndex((l) => l.msg === "request" && l.requestId === id);
    expect(logsWhenSent.get(id)).toBeTypeOf("number");
    expect(line).toBeGreaterThanOrEqual(logsWhenSent.get(id) as number);
  });

  it("survives a client that goes away in the middle of a small body it declared, and serves the next", async () => {
    const { port } = server.address() as AddressInfo;
    const socket = connect(port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(rawRequest(port, [...lines(headers(secret)), "content-length: 200"], '{"jsonrpc":"2.0",'));
    await new Promise((resolve) => setTimeout(resolve, 50));
    socket.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const res = await listSkills(base);
    expect(res.status).toBe(200);
  });

  it("survives a client gone before the endpoint reads its small body, which only the early read saw go", async () => {
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const gated = await gatedServer(gate);
    try {
      const socket = connect(gated.port, "127.0.0.1");
      await new Promise((resolve) => socket.once("connect", resolve));
      socket.write(rawRequest(gated.port, [...lines(headers(secret)), "content-length: 200"], '{"jsonrpc":"2.0",'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Gone while the endpoint has not started: the early read's promise fails with no one
      // waiting on it yet (an unhandled rejection would fail this test run).
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      open();
      await gated.done;
      const res = await listSkills(`http://127.0.0.1:${gated.port}`);
      expect(res.status).toBe(200);
    } finally {
      await new Promise((resolve) => gated.server.close(resolve));
    }
  });

  it("leaves a request whose Host makes no URL to Hono, every time, and still serves good hosts", async () => {
    const { port } = server.address() as AddressInfo;
    const body = call("skills", { action: "list" });
    const send = async (host: string) => {
      const head = [...lines(headers(secret)), `content-length: ${Buffer.byteLength(body)}`, "connection: close"];
      const socket = connect(port, "127.0.0.1");
      let answer = "";
      socket.on("data", (chunk) => {
        answer += chunk.toString();
      });
      const closed = new Promise((resolve) => socket.once("close", resolve));
      socket.write(rawRequest(port, head, body).replace(`host: 127.0.0.1:${port}`, `host: ${host}`));
      await closed;
      return answer.split("\r\n")[0];
    };
    // A port out of range: Node's parser takes it, the URL parser does not. Asked twice: the lane
    // remembers hosts, and must remember this one as refused.
    expect(await send("127.0.0.1:99999")).toBe("HTTP/1.1 599 unknown");
    expect(await send("127.0.0.1:99999")).toBe("HTTP/1.1 599 unknown");
    expect(await send(`127.0.0.1:${port}`)).toBe("HTTP/1.1 200 OK");
  });

  it("refuses a request without a token as the endpoint does, with its challenge", async () => {
    const res = await fetch(`${base}/mcp/e/some-endpoint?mode=plan`, {
      method: "POST",
      headers: headers(),
      body: call("skills", { action: "list" }),
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(
      `Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/mcp/e/some-endpoint", scope="mcp"`,
    );
    const answer = (await res.json()) as { error: { data: { code: string; requestId: string } } };
    expect(answer.error.data).toEqual({ code: "unauthorized", requestId: res.headers.get("x-request-id") });
  });

  it.each([
    ["declared", () => `{"pad":"${"x".repeat(4 * 1024 * 1024)}"}`],
    // Chunked, with no length: refused once the bytes read pass the limit.
    [
      "read",
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < 5; i++) controller.enqueue(new Uint8Array(1024 * 1024).fill(32));
            controller.close();
          },
        }),
    ],
  ])("refuses a body over 4 MiB (%s) and closes the connection", async (_, body) => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: headers(secret),
      body: body(),
      duplex: "half",
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(res.headers.get("connection")).toBe("close");
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("4 MiB");
  });

  it.each([
    ["GET /mcp", "GET", "/mcp"],
    ["DELETE /mcp", "DELETE", "/mcp"],
    ["a trailing slash", "POST", "/mcp/"],
    ["an encoded path", "POST", "/mcp/e/a%20b"],
    ["another path", "POST", "/v1/me"],
    ["an MCP path with a part too many", "POST", "/mcp/s/me/up/extra"],
  ])("leaves %s to Hono", async (_, method, path) => {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: headers(secret),
      ...(method === "POST" ? { body: call("skills", { action: "list" }) } : {}),
    });
    expect(res.status).toBe(599);
    expect(await res.text()).toBe("left to Hono");
  });
});

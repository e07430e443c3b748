/**
 * Test connects to a real upstream MCP server (server-everything, started here on loopback), lists
 * its tools and records the status; a server that cannot be reached is recorded as failed.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Account, signUpAccount } from "../helpers/account";
import { startTestServer, type TestServer } from "../helpers/server";
import { startEverything, type Upstream } from "../helpers/upstream";

let server: TestServer;
let upstream: Upstream;
let account: Account;

beforeAll(async () => {
  upstream = await startEverything();
  server = await startTestServer({ LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: "1" });
  account = await signUpAccount(server.url, "upstreams@example.com");
});
afterAll(async () => {
  await server?.close();
  await upstream?.stop();
});

describe("Test on a remote server", () => {
  it("connects to server-everything, lists its tools and marks it ok", async () => {
    const imported = await account.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: {
        text: JSON.stringify({
          mcpServers: { everything: { url: upstream.url, headers: { "X-Trace": "loadout-test" } } },
        }),
      },
    });
    expect(imported.body.imported.map((s: { slug: string }) => s.slug)).toEqual(["everything"]);
    const tested = await account.rest("/v1/workspaces/me/servers/everything/test", { method: "POST" });
    expect(tested.status).toBe(200);
    expect(tested.body.error).toBeNull();
    const names = tested.body.tools.tools.map((t: { name: string }) => t.name);
    expect(names).toEqual(expect.arrayContaining(["echo"]));
    expect(names.length).toBeGreaterThanOrEqual(10);
    expect(tested.body.server).toMatchObject({ status: "ok", lastError: null, checkedAt: expect.any(String) });
  });

  it("tells the user what a 401 means and what to do", async () => {
    const guarded: Server = createServer((_req, res) =>
      res.writeHead(401, { "www-authenticate": 'Bearer realm="upstream"' }).end("no"),
    );
    await new Promise<void>((resolve) => guarded.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(guarded.address() as AddressInfo).port}/mcp`;
      await account.rest("/v1/workspaces/me/servers/import", {
        method: "POST",
        body: { text: JSON.stringify({ mcpServers: { locked: { url } } }) },
      });
      const tested = await account.rest("/v1/workspaces/me/servers/locked/test", { method: "POST" });
      expect(tested.body.error).toMatch(/HTTP 401: the server wants authorization: add its token as a header/);
    } finally {
      await new Promise<void>((resolve) => guarded.close(() => resolve()));
    }
  });

  it("marks a server that does not answer as failed, with the reason", async () => {
    // A port nothing listens on: one a server had a moment ago.
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const closed = `http://127.0.0.1:${port}/mcp`;
    await account.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers: { gone: { url: closed } } }) },
    });
    const tested = await account.rest("/v1/workspaces/me/servers/gone/test", { method: "POST" });
    expect(tested.status).toBe(200);
    expect(tested.body.error).toMatch(/the connection was refused: is the server running/);
    const after = await account.rest("/v1/workspaces/me/servers/gone");
    expect(after.body).toMatchObject({ status: "failed", lastError: tested.body.error });
  });
});

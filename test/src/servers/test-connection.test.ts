/**
 * Test connects to a real upstream MCP server (server-everything, started here on loopback), lists
 * its tools and records the status; a server that cannot be reached is recorded as failed.
 */
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

  it("marks a server that does not answer as failed, with the reason", async () => {
    const closed = upstream.url.replace(/:\d+\//, ":9/");
    await account.rest("/v1/workspaces/me/servers/import", {
      method: "POST",
      body: { text: JSON.stringify({ mcpServers: { gone: { url: closed } } }) },
    });
    const tested = await account.rest("/v1/workspaces/me/servers/gone/test", { method: "POST" });
    expect(tested.status).toBe(200);
    expect(tested.body.error).toEqual(expect.any(String));
    const after = await account.rest("/v1/workspaces/me/servers/gone");
    expect(after.body).toMatchObject({ status: "failed", lastError: tested.body.error });
  });
});

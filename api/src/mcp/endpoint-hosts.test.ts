import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestApp, type TestApp } from "../testing";

/**
 * On loopback, the MCP endpoint answers only to the Host names it was given (the Node entry
 * passes the loopback names and the public URL's host): a web page whose own name was rebound to
 * 127.0.0.1 must not reach it.
 */
let t: TestApp;
beforeAll(async () => {
  t = await createTestApp({ deps: { allowedHosts: ["127.0.0.1", "localhost", "::1", "[::1]"] } });
});
afterAll(() => t?.close());

const post = (host: string) =>
  t.app.request(`http://${host}/mcp`, {
    method: "POST",
    headers: { host, "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
  });

describe("the MCP endpoint's Host check", () => {
  it.each(["rebound.example", "rebound.example:8787", "127.0.0.1.rebound.example"])(
    "refuses Host %s before anything else, saying how to fix it",
    async (host) => {
      const res = await post(host);
      expect(res.status).toBe(403);
      const answer = (await res.json()) as { error: { message: string; data: { code: string } } };
      expect(answer.error.data.code).toBe("forbidden");
      expect(answer.error.message).toContain(`Host ${host.split(":")[0]} is not one this server answers to`);
      expect(answer.error.message).toContain("LOADOUT_PUBLIC_URL");
    },
  );

  it.each(["127.0.0.1:8787", "localhost", "LOCALHOST:8787", "[::1]:8787"])(
    "lets Host %s through to the token check",
    async (host) => {
      const res = await post(host);
      expect(res.status).toBe(401);
    },
  );

  it("answers the same after more distinct Host names than it remembers", async () => {
    for (let i = 0; i < 300; i++) expect((await post(`h${i}.example`)).status).toBe(403);
    expect((await post("localhost:8787")).status).toBe(401);
    expect((await post("rebound.example")).status).toBe(403);
  });
});

import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FetchGuard, guardedFetch, UpstreamRefused } from "./guarded-fetch";

/** A guard like production's, with a resolver the test controls. */
const names: Record<string, string[]> = {
  "public.example": ["93.184.216.34"],
  "sneaky.example": ["93.184.216.34", "10.0.0.7"],
  "metadata.example": ["169.254.169.254"],
};
const guard = (allowLoopback: boolean): FetchGuard => ({
  urlProblem: (url) =>
    url.startsWith("https://") || (allowLoopback && url.startsWith("http://127.0.0.1"))
      ? null
      : "upstream servers must use https",
  resolve: async (host) => names[host] ?? [],
  addressProblem: (ip) =>
    /^(10\.|169\.254\.)/.test(ip)
      ? `resolves to ${ip}, a private or metadata address`
      : ip.startsWith("127.") && !allowLoopback
        ? `resolves to ${ip}, a loopback address`
        : null,
});

let server: Server;
let base: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === "/to-private") {
      res.writeHead(302, { location: "https://sneaky.example/mcp" }).end();
    } else if (req.url === "/post-redirect") {
      res.writeHead(307, { location: "/elsewhere" }).end();
    } else {
      res.writeHead(200, { "content-type": "text/plain" }).end("ok");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("guardedFetch", () => {
  it("reaches an allowed server", async () => {
    const res = await guardedFetch(guard(true))(`${base}/ok`);
    expect(await res.text()).toBe("ok");
  });

  it.each([
    ["http://127.0.0.1:1/mcp without the loopback allowance", guard(false), "http://127.0.0.1:1/mcp", /https/],
    ["a host with one private address among public ones", guard(true), "https://sneaky.example/mcp", /10\.0\.0\.7/],
    ["a host resolving to the metadata address", guard(true), "https://metadata.example/mcp", /169\.254\.169\.254/],
    ["a host that does not resolve", guard(true), "https://nowhere.example/mcp", /does not resolve/],
  ])("refuses %s, before any connection", async (_, g, url, message) => {
    await expect(guardedFetch(g)(url)).rejects.toThrow(message);
    await expect(guardedFetch(g)(url)).rejects.toBeInstanceOf(UpstreamRefused);
  });

  it("checks every redirect hop again", async () => {
    await expect(guardedFetch(guard(true))(`${base}/to-private`)).rejects.toThrow(/10\.0\.0\.7/);
  });

  it("does not replay a POST on a redirect", async () => {
    await expect(guardedFetch(guard(true))(`${base}/post-redirect`, { method: "POST", body: "{}" })).rejects.toThrow(
      /redirected a POST/,
    );
  });
});

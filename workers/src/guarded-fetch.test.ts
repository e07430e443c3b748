import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Cancellation } from "./cancellation";
import { type FetchGuard, guardedFetch, guardedPost, UpstreamRefused } from "./guarded-fetch";
import type { UpstreamPost } from "./pool";

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

describe("guardedPost", () => {
  /** A guard that counts its checks, over a POST that answers without a network. */
  function counted(allowLoopback: boolean) {
    const checks: string[] = [];
    const inner = guard(allowLoopback);
    const g: FetchGuard = {
      ...inner,
      urlProblem: (url) => {
        checks.push(url);
        return inner.urlProblem(url);
      },
    };
    const sent: string[] = [];
    const base: UpstreamPost = async (url) => {
      sent.push(url);
      return { status: 200, contentType: "application/json", body: (async function* () {})() };
    };
    return { g, base, checks, sent };
  }
  const init = { headers: {}, body: "{}", cancellation: new Cancellation() };

  it("checks every POST when told to remember nothing, and refuses before sending", async () => {
    const { g, base, checks, sent } = counted(false);
    const post = guardedPost(g, base);
    await post("https://public.example/mcp", init);
    await post("https://public.example/mcp", init);
    expect(checks).toHaveLength(2);
    await expect(post("https://sneaky.example/mcp", init)).rejects.toThrow(/10\.0\.0\.7/);
    await expect(post("http://127.0.0.1:1/mcp", init)).rejects.toBeInstanceOf(UpstreamRefused);
    expect(sent).toEqual(["https://public.example/mcp", "https://public.example/mcp"]);
  });

  it("lets a URL that passed through unchecked for as long as it remembers, then checks it again", async () => {
    const { g, base, checks } = counted(false);
    let now = 1_000;
    const post = guardedPost(g, base, { ms: 30_000, now: () => now });
    await post("https://public.example/mcp", init);
    now += 29_999;
    await post("https://public.example/mcp", init);
    expect(checks).toHaveLength(1);
    now += 1;
    await post("https://public.example/mcp", init);
    expect(checks).toHaveLength(2);
    // Another URL on the same host is a URL of its own.
    await post("https://public.example/other", init);
    expect(checks).toHaveLength(3);
  });

  it("never remembers a refusal", async () => {
    const { g, base, checks, sent } = counted(false);
    const post = guardedPost(g, base, { ms: 30_000, now: () => 0 });
    for (let i = 0; i < 2; i++) await expect(post("https://metadata.example/mcp", init)).rejects.toThrow(/169\.254/);
    expect(checks).toHaveLength(2);
    expect(sent).toEqual([]);
  });
});

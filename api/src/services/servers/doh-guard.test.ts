/**
 * The Workers resolver (DNS over HTTPS, workers/src/doh-resolver.ts) against a DoH server this
 * test runs, feeding the production address guard: what Node's resolver refuses, it refuses too.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { checkUpstreamUrl, DohFailed, dohResolver, UpstreamRefused } from "@loadout/workers";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { upstreamGuard } from "./upstreams";

type Zone = Record<string, { type: number; TTL: number; data: string }[]>;
const A = 1;
const CNAME = 5;
const AAAA = 28;
const zone: Zone = {
  "public.example": [
    { type: A, TTL: 60, data: "93.184.216.34" },
    { type: AAAA, TTL: 30, data: "2606:2800:220:1:248:1893:25c8:1946" },
  ],
  "alias.example": [
    { type: CNAME, TTL: 300, data: "public.example." },
    { type: A, TTL: 60, data: "93.184.216.34" },
  ],
  "private.example": [{ type: A, TTL: 60, data: "10.1.2.3" }],
  "mixed.example": [
    { type: A, TTL: 60, data: "93.184.216.34" },
    { type: AAAA, TTL: 60, data: "fd00::1" },
  ],
};
const queries: string[] = [];

let server: Server;
let url: string;
beforeAll(async () => {
  server = createServer((req, res) => {
    const query = new URL(req.url ?? "/", "http://doh.test").searchParams;
    const name = query.get("name") ?? "";
    const type = query.get("type") === "AAAA" ? AAAA : A;
    queries.push(`${name} ${query.get("type")}`);
    if (req.headers.accept !== "application/dns-json") return void res.writeHead(415).end();
    if (name === "slow.example") return; // never answers
    if (name === "broken.example") return void res.writeHead(200).end('{"Status":2}');
    const records = zone[name];
    const body = records
      ? { Status: 0, Answer: records.filter((r) => r.type === type || r.type === CNAME) }
      : { Status: 3 };
    res.writeHead(200, { "content-type": "application/dns-json" }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/dns-query`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});
beforeEach(() => {
  queries.length = 0;
});

describe("dohResolver", () => {
  it("returns A and AAAA addresses, without the CNAME targets of the chain", async () => {
    const resolve = dohResolver({ url });
    expect(await resolve("public.example")).toEqual(["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"]);
    expect(await resolve("alias.example")).toEqual(["93.184.216.34"]);
  });

  it("keeps an answer for its shortest TTL, then asks again", async () => {
    let now = 1_000_000;
    const resolve = dohResolver({ url, now: () => now });
    await resolve("public.example");
    now += 29_000;
    await resolve("Public.Example.");
    expect(queries).toEqual(["public.example A", "public.example AAAA"]);
    now += 2_000;
    await resolve("public.example");
    expect(queries).toHaveLength(4);
  });

  it("answers no addresses for a name that does not exist, and does not keep that", async () => {
    const resolve = dohResolver({ url });
    expect(await resolve("nowhere.example")).toEqual([]);
    expect(await resolve("nowhere.example")).toEqual([]);
    expect(queries).toHaveLength(4);
  });

  it("fails with a clear error on a resolver error or a resolver that does not answer in time", async () => {
    await expect(dohResolver({ url })("broken.example")).rejects.toThrow(
      new DohFailed("the DNS resolver gave no usable answer for broken.example"),
    );
    await expect(dohResolver({ url, timeoutMs: 200 })("slow.example")).rejects.toThrow(
      "the DNS resolver did not answer for slow.example within 0.2 s",
    );
    await expect(dohResolver({ url: "http://127.0.0.1:1/dns-query" })("public.example")).rejects.toThrow(
      "the DNS resolver could not be reached for public.example",
    );
  });
});

describe("the address guard over DNS over HTTPS (as on Workers)", () => {
  const guard = (allowLoopback = false) => upstreamGuard(dohResolver({ url }), allowLoopback);

  it("lets a public host through", async () => {
    await expect(checkUpstreamUrl(guard(), new URL("https://public.example/mcp"))).resolves.toBeUndefined();
  });

  it.each([
    ["a name resolving to a private address", "https://private.example/mcp", "resolves to 10.1.2.3, a private"],
    ["a name with one private address among public ones", "https://mixed.example/mcp", "resolves to fd00::1"],
    ["a name that does not resolve", "https://nowhere.example/mcp", "nowhere.example does not resolve"],
    ["a literal loopback address without the allowance", "https://127.0.0.1/mcp", "a loopback address"],
  ])("refuses %s, with the words Node's guard uses", async (_, target, message) => {
    const refused = checkUpstreamUrl(guard(), new URL(target));
    await expect(refused).rejects.toBeInstanceOf(UpstreamRefused);
    await expect(checkUpstreamUrl(guard(), new URL(target))).rejects.toThrow(message);
  });
});

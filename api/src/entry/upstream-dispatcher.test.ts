import type { LookupOptions } from "node:dns";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { checkedLookup, dispatchedFetch, rememberedResolver, upstreamDispatcher } from "./upstream-dispatcher";

/** A resolver that answers what a rebinding DNS server would: a loopback address for any name. */
const rebinding = (_host: string, _options: LookupOptions, callback: (e: null, a: unknown) => void) =>
  callback(null, [{ address: "127.0.0.1", family: 4 }]);

let server: Server;
let port: number;
beforeAll(async () => {
  server = createServer((_req, res) => res.end("reached"));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe("the upstream dispatcher", () => {
  it("refuses to connect when the name resolves to a forbidden address at connect time", async () => {
    const dispatcher = upstreamDispatcher({ allowLoopback: false }, rebinding as never);
    const error = await dispatchedFetch(dispatcher)(`http://rebound.example:${port}/`).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(String((error as Error & { cause?: Error }).cause?.message)).toMatch(
      /rebound\.example resolves to 127\.0\.0\.1/,
    );
    await dispatcher.close();
  });

  it("connects when the policy allows the address", async () => {
    const dispatcher = upstreamDispatcher({ allowLoopback: true }, rebinding as never);
    const res = await dispatchedFetch(dispatcher)(`http://rebound.example:${port}/`);
    expect(await res.text()).toBe("reached");
    await dispatcher.close();
  });

  it("answers a single address when not asked for all", async () => {
    const lookup = checkedLookup({ allowLoopback: true }, rebinding as never);
    const answer = await new Promise((resolve) => lookup("x.example", {}, (e, a, f) => resolve([e, a, f])));
    expect(answer).toEqual([null, "127.0.0.1", 4]);
  });
});

describe("rememberedResolver", () => {
  it("asks DNS once per host until the time runs out, and never remembers a failure", async () => {
    let clock = 0;
    const asked: string[] = [];
    let fail = false;
    const resolve = rememberedResolver(
      async (host) => {
        asked.push(host);
        if (fail) throw new Error("ENOTFOUND");
        return [`203.0.113.${asked.length}`];
      },
      1_000,
      () => clock,
    );
    expect(await resolve("a.example")).toEqual(["203.0.113.1"]);
    clock = 999;
    expect(await resolve("a.example")).toEqual(["203.0.113.1"]);
    expect(await resolve("b.example")).toEqual(["203.0.113.2"]);
    clock = 1_000;
    expect(await resolve("a.example")).toEqual(["203.0.113.3"]);
    fail = true;
    await expect(resolve("c.example")).rejects.toThrow("ENOTFOUND");
    fail = false;
    expect(await resolve("c.example")).toEqual(["203.0.113.5"]);
    expect(asked).toEqual(["a.example", "b.example", "a.example", "c.example", "c.example"]);
  });
});

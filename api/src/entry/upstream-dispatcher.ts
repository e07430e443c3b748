import type { LookupAddress, LookupOptions } from "node:dns";
import { lookup as dnsLookup } from "node:dns";
import { Agent } from "undici";
import { upstreamAddressProblem } from "../domain/servers/address-policy";

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;
type Lookup = (hostname: string, options: LookupOptions, callback: LookupCallback) => void;

/**
 * A DNS lookup that refuses addresses the SSRF policy forbids, at the moment of connecting. The
 * guarded fetch checks a host before each request, but the name could resolve differently a moment
 * later (DNS rebinding); checking here, on the addresses the socket will use, closes that window.
 */
export function checkedLookup(options: { allowLoopback: boolean }, resolve: Lookup = dnsLookup as Lookup): Lookup {
  return (hostname, lookupOptions, callback) => {
    resolve(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) return callback(error, []);
      const list = (Array.isArray(addresses) ? addresses : [{ address: addresses, family: 4 }]) as LookupAddress[];
      for (const { address } of list) {
        const problem = upstreamAddressProblem(address, options);
        if (problem) {
          const refused: NodeJS.ErrnoException = new Error(`${hostname} ${problem}`);
          refused.code = "EUPSTREAMREFUSED";
          return callback(refused, []);
        }
      }
      if (lookupOptions.all) return callback(null, list);
      const first = list[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
      callback(null, first.address, first.family);
    });
  };
}

/** The connection pool for upstream requests on Node: every new connection's addresses are checked. */
export function upstreamDispatcher(options: { allowLoopback: boolean }, resolve?: Lookup): Agent {
  return new Agent({ connect: { lookup: checkedLookup(options, resolve) } });
}

/** Node's fetch through that dispatcher. */
export function dispatchedFetch(dispatcher: Agent): typeof fetch {
  return ((input: RequestInfo | URL, init?: RequestInit) =>
    fetch(input, { ...init, dispatcher } as RequestInit)) as typeof fetch;
}

/**
 * The guard's check before each upstream request, remembered per host for `ttlMs`: without it
 * every warm call waits on a DNS lookup (Node's resolver keeps no cache). Safe only with the
 * dispatcher above, which checks the addresses of every connection it opens whatever this says;
 * failures are not remembered.
 */
export function rememberedResolver(
  resolve: (host: string) => Promise<string[]>,
  ttlMs = 30_000,
  now: () => number = Date.now,
  max = 1_000,
): (host: string) => Promise<string[]> {
  const known = new Map<string, { addresses: string[]; until: number }>();
  return async (host) => {
    const hit = known.get(host);
    if (hit && hit.until > now()) return hit.addresses;
    const addresses = await resolve(host);
    if (known.size >= max) known.clear();
    known.set(host, { addresses, until: now() + ttlMs });
    return addresses;
  };
}

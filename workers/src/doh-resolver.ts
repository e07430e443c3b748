/**
 * A host's addresses over DNS over HTTPS (the JSON API of RFC 8484 resolvers such as
 * cloudflare-dns.com), for the SSRF guard where the runtime has no resolver of its own (Workers).
 * The addresses it returns go through the same address rules as on Node, so refusals read alike.
 *
 * Written here rather than taken from `dns-over-http-resolver`: that package keeps CNAME targets
 * among the addresses (the guard would then judge a host name as an IP) and caches for the TTL
 * in milliseconds where DNS gives seconds. This is one GET per record type, A and AAAA together.
 */

export const DEFAULT_DOH_URL = "https://cloudflare-dns.com/dns-query";
export const DOH_TIMEOUT_MS = 3_000;
/** Answers are kept for their TTL, but never longer than this (and never past MAX_CACHED hosts). */
const MAX_TTL_SECONDS = 300;
const MAX_CACHED = 500;

const RECORD_TYPES = { A: 1, AAAA: 28 } as const;
/** DNS response codes the JSON API reports in `Status`: NOERROR and NXDOMAIN are answers. */
const NOERROR = 0;
const NXDOMAIN = 3;

export class DohFailed extends Error {
  override readonly name = "DohFailed";
}

export interface DohResolverOptions {
  /** The resolver's JSON endpoint (default Cloudflare's); tests point it at their own server. */
  url?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  now?: () => number;
}

interface DohAnswer {
  type: number;
  TTL: number;
  data: string;
}

function parseAnswer(body: unknown, type: number): { addresses: string[]; ttl: number } | "nxdomain" | null {
  if (typeof body !== "object" || body === null) return null;
  const { Status, Answer } = body as { Status?: unknown; Answer?: unknown };
  if (Status === NXDOMAIN) return "nxdomain";
  if (Status !== NOERROR) return null;
  const records = (Array.isArray(Answer) ? Answer : []).filter(
    (a): a is DohAnswer =>
      typeof a === "object" && a !== null && a.type === type && typeof a.data === "string" && typeof a.TTL === "number",
  );
  const ttl = records.length === 0 ? 0 : Math.min(...records.map((a) => a.TTL));
  return { addresses: records.map((a) => a.data), ttl };
}

/**
 * Returns `resolve(host)`: its A and AAAA addresses (empty when the name does not exist), from a
 * cache kept for the answers' TTL. A resolver that fails or is slow throws DohFailed, which the
 * guard reports as a refusal: nothing is fetched from a host whose addresses are unknown.
 */
export function dohResolver(options: DohResolverOptions = {}): (host: string) => Promise<string[]> {
  const endpoint = options.url ?? DEFAULT_DOH_URL;
  const timeoutMs = options.timeoutMs ?? DOH_TIMEOUT_MS;
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init));
  const now = options.now ?? Date.now;
  const cache = new Map<string, { addresses: string[]; until: number }>();

  const query = async (host: string, type: keyof typeof RECORD_TYPES) => {
    const url = new URL(endpoint);
    url.searchParams.set("name", host);
    url.searchParams.set("type", type);
    let response: Response;
    try {
      response = await doFetch(url, {
        headers: { accept: "application/dns-json" },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new DohFailed(
        timedOut
          ? `the DNS resolver did not answer for ${host} within ${timeoutMs / 1000} s`
          : `the DNS resolver could not be reached for ${host}`,
      );
    }
    const body: unknown = response.ok ? await response.json().catch(() => null) : null;
    const parsed = parseAnswer(body, RECORD_TYPES[type]);
    if (parsed === null) throw new DohFailed(`the DNS resolver gave no usable answer for ${host}`);
    return parsed === "nxdomain" ? { addresses: [], ttl: 0 } : parsed;
  };

  return async (host) => {
    const name = host.toLowerCase().replace(/\.$/, "");
    const cached = cache.get(name);
    if (cached && cached.until > now()) return cached.addresses;
    const [a, aaaa] = await Promise.all([query(name, "A"), query(name, "AAAA")]);
    const addresses = [...a.addresses, ...aaaa.addresses];
    const ttl = Math.min(MAX_TTL_SECONDS, ...[a, aaaa].filter((r) => r.addresses.length > 0).map((r) => r.ttl));
    if (addresses.length > 0 && ttl > 0) {
      if (cache.size >= MAX_CACHED) cache.clear();
      cache.set(name, { addresses, until: now() + ttl * 1000 });
    }
    return addresses;
  };
}

import type { UpstreamPost } from "./pool";

/**
 * A fetch for upstream MCP servers that refuses to reach what it must not (the SSRF guard): the
 * URL is checked, every address the host resolves to is checked, and redirects are followed by
 * hand so that each hop is checked the same way.
 */
export interface FetchGuard {
  /** A problem with the URL itself (scheme, credentials…), or null. */
  urlProblem(url: string): string | null;
  /** The host's addresses (A and AAAA). */
  resolve(host: string): Promise<string[]>;
  /** A problem with one resolved address, or null. */
  addressProblem(ip: string): string | null;
}

export class UpstreamRefused extends Error {
  override readonly name = "UpstreamRefused";
}

const MAX_REDIRECTS = 5;

/** Refuses a URL, or any address its host resolves to, that the guard forbids. */
export async function checkUpstreamUrl(guard: FetchGuard, url: URL): Promise<void> {
  const problem = guard.urlProblem(url.toString());
  if (problem) throw new UpstreamRefused(problem);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = /^[\d.]+$|:/.test(host) ? [host] : await guard.resolve(host);
  if (addresses.length === 0) throw new UpstreamRefused(`${host} does not resolve to any address`);
  for (const address of addresses) {
    const refused = guard.addressProblem(address);
    if (refused) throw new UpstreamRefused(`${host} ${refused}`);
  }
}

/** How long a URL that passed the guard is not checked again, and the clock that says so. */
export interface RememberedChecks {
  ms: number;
  now(): number;
}

/** URLs remembered at most (then all are forgotten at once). */
const MAX_REMEMBERED = 1_000;

/**
 * A POST under the same guard (a POST is never redirected: see guardedFetch). With `remember`,
 * a URL that passed is let through without a new check for that long: only for a host whose
 * HTTP client checks the addresses of every connection it opens (Node's dispatcher), and no
 * longer than its resolver remembers a host's addresses, so that nothing is let through that
 * checking again would have refused. Refusals are never remembered.
 */
export function guardedPost(guard: FetchGuard, base: UpstreamPost, remember?: RememberedChecks): UpstreamPost {
  const passed = new Map<string, number>();
  const checkThenPost: UpstreamPost = async (url, init) => {
    await checkUpstreamUrl(guard, new URL(url));
    if (remember) {
      if (passed.size >= MAX_REMEMBERED) passed.clear();
      passed.set(url, remember.now() + remember.ms);
    }
    return base(url, init);
  };
  // A URL that passed lately goes straight to the POST, without a promise of its own around it.
  return (url, init) =>
    remember && (passed.get(url) ?? 0) > remember.now() ? base(url, init) : checkThenPost(url, init);
}

export function guardedFetch(guard: FetchGuard, base: typeof fetch = fetch): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    let url = new URL(input instanceof Request ? input.url : String(input));
    let request = init;
    for (let hop = 0; ; hop++) {
      await checkUpstreamUrl(guard, url);
      const response = await base(url, { ...request, redirect: "manual" });
      const location = response.headers.get("location");
      if (response.status < 300 || response.status >= 400 || !location) return response;
      if (hop >= MAX_REDIRECTS) throw new UpstreamRefused(`more than ${MAX_REDIRECTS} redirects`);
      url = new URL(location, url);
      // A redirected POST is not replayed: MCP requests must reach the URL the user configured.
      if ((request?.method ?? "GET").toUpperCase() !== "GET")
        throw new UpstreamRefused(
          `the server redirected a ${request?.method} to ${url.origin}; configure that URL instead`,
        );
      request = { ...request };
    }
  }) as typeof fetch;
}

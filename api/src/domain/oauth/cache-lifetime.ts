/**
 * How long a fetched client metadata document may be reused, from its HTTP caching headers:
 * `no-store`/`no-cache` mean fetch again next time, `max-age` (or `s-maxage`) wins over
 * `Expires`, and without either a default applies. The result is clamped so a document is never
 * kept past a day, nor fetched on every request of a busy client.
 */
export const CACHE_DEFAULT_SECONDS = 3600;
export const CACHE_MAX_SECONDS = 86_400;
export const CACHE_MIN_SECONDS = 60;

export function cacheLifetimeSeconds(cacheControl: string | null, expires: string | null, now: Date): number {
  const directives = (cacheControl ?? "")
    .toLowerCase()
    .split(",")
    .map((d) => d.trim());
  if (directives.includes("no-store") || directives.includes("no-cache")) return 0;
  const maxAge = directives
    .map((d) => /^(?:s-maxage|max-age)\s*=\s*"?(\d+)"?$/.exec(d)?.[1])
    .find((v) => v !== undefined);
  let seconds = CACHE_DEFAULT_SECONDS;
  if (maxAge !== undefined) seconds = Number(maxAge);
  else if (expires) {
    const at = Date.parse(expires);
    seconds = Number.isNaN(at) ? 0 : Math.floor((at - now.getTime()) / 1000);
  }
  if (seconds <= 0) return 0;
  return Math.min(CACHE_MAX_SECONDS, Math.max(CACHE_MIN_SECONDS, seconds));
}

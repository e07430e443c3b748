/**
 * Secrets some servers carry in their URL (`?api_key=…`, a token as a path segment, as Zapier and
 * others hand out): the URL Loadout shows, audits and logs has them masked, and the real one is
 * kept sealed like a header value.
 */

/** Query parameter names that hold credentials. */
const SECRET_PARAM =
  /(^|[_-])(key|apikey|api_key|token|secret|password|passwd|pwd|auth|authorization|sig|signature|credential|credentials|session|code)$|^(key|token|secret|auth|sig|code)$/i;

/**
 * A path segment that looks like a credential rather than words or a date: one of its parts
 * (split at `-`, `_` and `.`) is 16 or more letters and digits with at least three of each.
 */
function secretSegment(segment: string): boolean {
  return segment.split(/[-_.]/).some((part) => {
    if (!/^[A-Za-z0-9]{16,}$/.test(part)) return false;
    const digits = part.replace(/[^0-9]/g, "").length;
    return digits >= 3 && part.length - digits >= 3;
  });
}

export const MASK = "••••";

/**
 * The URL with secret-looking query values and path segments replaced by a mask; the same string
 * when it holds none. An unparsable URL is returned as is (the URL policy refuses it anyway).
 */
export function maskUrlSecrets(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  let changed = false;
  const segments = parsed.pathname.split("/").map((segment) => {
    if (!secretSegment(decodeURIComponent(segment))) return segment;
    changed = true;
    return MASK;
  });
  const query = [...parsed.searchParams.entries()].map(([name, value]) => {
    if (!SECRET_PARAM.test(name) || value === "") return [name, value] as const;
    changed = true;
    return [name, MASK] as const;
  });
  if (!changed) return url;
  const search = query.length
    ? `?${query.map(([n, v]) => `${encodeURIComponent(n)}=${v === MASK ? MASK : encodeURIComponent(v)}`).join("&")}`
    : "";
  return `${parsed.origin}${segments.join("/")}${search}${parsed.hash}`;
}

/** The secret values a URL holds (those maskUrlSecrets hides), to scrub them from error messages. */
export function urlSecretValues(url: string): string[] {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return [];
  }
  const values = [
    ...parsed.pathname
      .split("/")
      .map((segment) => decodeURIComponent(segment))
      .filter((segment) => secretSegment(segment)),
    ...[...parsed.searchParams.entries()].filter(([name, value]) => SECRET_PARAM.test(name) && value).map(([, v]) => v),
  ];
  // Each as it appears decoded and encoded.
  return [...new Set(values.flatMap((v) => [v, encodeURIComponent(v)]))].filter((v) => v.length >= 4);
}

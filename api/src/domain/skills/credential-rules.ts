/**
 * Credentials the secretlint recommended preset (12.0) does not report, found by testing it with
 * correctly formatted fake secrets of each kind the product must refuse:
 * - a PEM private key header without a full, valid base64 body (the preset validates the body,
 *   and knows neither `ENCRYPTED PRIVATE KEY` nor armoured `PGP PRIVATE KEY BLOCK` bodies);
 * - Google API keys (`AIza…`; the preset's GCP rule looks only at service-account JSON files);
 * - signed JWTs;
 * - OpenAI project, service-account and admin keys without the `T3BlbkFJ` marker;
 * - Anthropic keys other than `sk-ant-api0N-…AA` (admin keys, OAuth tokens);
 * - Slack `xoxs-` tokens;
 * - Stripe, Cloudflare and Tailscale keys: preset 12.0, the last release that accepts Node 20,
 *   has no rules for them (13.x added them); the patterns are those of secretlint 13.1.
 * There is deliberately no allow-list here: a placeholder is refused unless secretlint itself
 * allows it.
 */

export interface SupplementaryRule {
  kind: string;
  pattern: RegExp;
  /** A further check on the match, for shapes a regular expression cannot confirm. */
  confirm?: (match: string) => boolean;
}

export const SUPPLEMENTARY_RULES: SupplementaryRule[] = [
  { kind: "private key", pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----/g },
  { kind: "Google API key", pattern: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  {
    kind: "JWT",
    pattern: /(?<![A-Za-z0-9_-])e[A-Za-z0-9_-]{9,}\.[A-Za-z0-9_-]{2,}\.[A-Za-z0-9_-]{8,}(?![A-Za-z0-9_-])/g,
    confirm: isSignedJwt,
  },
  { kind: "OpenAI API key", pattern: /(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}/g },
  { kind: "Anthropic API key", pattern: /(?<![A-Za-z0-9_-])sk-ant-[a-z]+\d{2}-[A-Za-z0-9_-]{40,}/g },
  { kind: "Slack token", pattern: /(?<![A-Za-z0-9])xoxs-(?:[A-Za-z0-9]{1,40}-)+[A-Za-z0-9]{1,40}(?![A-Za-z0-9])/g },
  { kind: "Stripe key", pattern: /(?<!\p{L})(?:sk|rk)_(?:live|test)_[a-zA-Z0-9]{24,99}(?![a-zA-Z0-9])/gu },
  { kind: "Cloudflare token", pattern: /(?<!\p{L})(?:cfk|cfut|cfat)_[A-Za-z0-9]{40}[0-9a-f]{8}(?![A-Za-z0-9])/gu },
  {
    kind: "Tailscale key",
    pattern: /(?<!\p{L})tskey-[a-z]{2,20}-[0-9A-Za-z_]{8,40}-[0-9A-Za-z_]{16,60}(?![0-9A-Za-z_])/gu,
  },
];

/**
 * A JWS in compact form whose header is JSON naming a signing algorithm. `alg: none` tokens
 * carry no signature and prove nothing, so documentation examples of them are allowed.
 */
export function isSignedJwt(token: string): boolean {
  const [header, payload, signature] = token.split(".");
  if (!header || !payload || !signature) return false;
  const decoded = decodeBase64Url(header);
  if (decoded === null || decodeBase64Url(payload) === null) return false;
  try {
    const json: unknown = JSON.parse(decoded);
    if (typeof json !== "object" || json === null) return false;
    const alg = (json as { alg?: unknown }).alg;
    return typeof alg === "string" && alg.toLowerCase() !== "none";
  } catch {
    return false;
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

function decodeBase64Url(segment: string): string | null {
  if (segment.length % 4 === 1) return null;
  try {
    const binary = atob(segment.replace(/-/g, "+").replace(/_/g, "/"));
    return utf8.decode(Uint8Array.from(binary, (ch) => ch.charCodeAt(0)));
  } catch {
    return null;
  }
}

import type { AppDeps } from "./env";

/** What the origin is read from: a Hono context, or the Node host's MCP lane. */
interface OriginSource {
  get(key: "deps"): AppDeps;
  req: { url: string; header(name: string): string | undefined };
}

/** The configured public URL's origin, worked out once (it is the same on every request). */
let configuredUrl: string | undefined;
let configuredOrigin = "";

/**
 * The origin clients reach this server at: the OAuth issuer, and the base of the MCP URLs that
 * tokens are bound to. The configured public URL wins; without one, the request says (behind a
 * TLS-terminating proxy, X-Forwarded-Proto gives the scheme). Read without parsing the request's
 * URL where the Host header is there, as it is on every HTTP/1.1 request: this runs on every MCP
 * request.
 */
export function requestOrigin(c: OriginSource): string {
  const configured = c.get("deps").publicUrl;
  if (configured) {
    if (configured !== configuredUrl) {
      configuredOrigin = new URL(configured).origin;
      configuredUrl = configured;
    }
    return configuredOrigin;
  }
  const url = c.req.url;
  const proto = c.req.header("x-forwarded-proto") ?? url.slice(0, url.indexOf(":")).toLowerCase();
  return `${proto}://${c.req.header("host") ?? new URL(url).host}`;
}

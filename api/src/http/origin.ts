import type { AppDeps } from "./env";

/** What the origin is read from: a Hono context, or the Node host's MCP lane. */
interface OriginSource {
  get(key: "deps"): AppDeps;
  req: { url: string; header(name: string): string | undefined };
}

/**
 * The origin clients reach this server at: the OAuth issuer, and the base of the MCP URLs that
 * tokens are bound to. The configured public URL wins; without one, the request says (behind a
 * TLS-terminating proxy, X-Forwarded-Proto gives the scheme).
 */
export function requestOrigin(c: OriginSource): string {
  const configured = c.get("deps").publicUrl;
  if (configured) return new URL(configured).origin;
  const url = new URL(c.req.url);
  const proto = c.req.header("x-forwarded-proto") ?? url.protocol.replace(":", "");
  return `${proto}://${c.req.header("host") ?? url.host}`;
}

/**
 * A client ID metadata document's URL (the `client_id` itself): https, with a path, without a
 * fragment, credentials or dot segments, so that one URL names one document. Whether its host
 * may be reached is the SSRF guard's question, asked when it is fetched. Where loopback upstreams
 * are allowed (local use and tests), plain http on a loopback address is taken too: that is where a
 * local Loadout publishes its own document as a client of another.
 */
const LOOPBACK_HTTP = /^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?\//;

export function looksLikeClientIdUrl(clientId: string, allowLoopback = false): boolean {
  return clientId.startsWith("https://") || (allowLoopback && LOOPBACK_HTTP.test(clientId));
}

export function clientIdUrlProblem(clientId: string, allowLoopback = false): string | null {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return "client_id is not a valid URL";
  }
  if (url.protocol !== "https:" && !(allowLoopback && LOOPBACK_HTTP.test(clientId)))
    return "a URL client_id must use https";
  if (url.username !== "" || url.password !== "") return "client_id must not contain credentials";
  if (clientId.includes("#")) return "client_id must not have a fragment";
  if (url.pathname === "/" || url.pathname === "") return "client_id must have a path (https://host/path/client.json)";
  if (/(^|\/)\.\.?(\/|$)/.test(clientId.slice(url.origin.length).split("?")[0] ?? "")) {
    return "client_id must not contain . or .. path segments";
  }
  if (url.href !== clientId) return `client_id must be written canonically, as ${url.href}`;
  return null;
}

/**
 * Redirect URIs a client may register: https for every client; plain http only on a loopback
 * host, and only for native clients (RFC 8252 §7.3). Matching at /oauth/authorize is exact
 * string comparison against the registered list, so nothing here normalises.
 */
export type ApplicationType = "web" | "native";

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

export function redirectUriProblem(uri: string, applicationType: ApplicationType): string | null {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return `${uri} is not an absolute URL`;
  }
  if (url.hash !== "" || uri.includes("#")) return `${uri} has a fragment, which redirect URIs must not have`;
  if (url.username !== "" || url.password !== "") return `${uri} contains credentials`;
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:" && LOOPBACK_HOSTS.has(url.hostname)) {
    return applicationType === "native"
      ? null
      : `${uri} is a loopback http URI, which only native clients (application_type "native") may use`;
  }
  return `${uri} must use https (or http on a loopback address, for native clients)`;
}

/** The host a redirect goes to, as the consent page names it. */
export function redirectHost(uri: string): string {
  try {
    return new URL(uri).host;
  } catch {
    return uri;
  }
}

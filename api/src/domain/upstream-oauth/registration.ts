/**
 * How Loadout identifies itself to an authorization server, in the spec's order (§5.4): a client
 * the user registered and pasted; Loadout's client ID metadata document where the server accepts
 * one; dynamic registration; else the user is told what the server needs.
 */
export type RegistrationChoice =
  | { kind: "pasted" }
  | { kind: "metadata-document"; clientId: string }
  | { kind: "dynamic"; endpoint: string }
  | { kind: "none"; problem: string };

export function chooseRegistration(input: {
  pastedClientId: string | null;
  metadata: { client_id_metadata_document_supported?: unknown; registration_endpoint?: unknown };
  /** Loadout's metadata document URL, or null where it cannot be one (not https, and loopback not allowed). */
  metadataDocumentUrl: string | null;
}): RegistrationChoice {
  if (input.pastedClientId) return { kind: "pasted" };
  if (input.metadata.client_id_metadata_document_supported === true && input.metadataDocumentUrl)
    return { kind: "metadata-document", clientId: input.metadataDocumentUrl };
  if (typeof input.metadata.registration_endpoint === "string")
    return { kind: "dynamic", endpoint: input.metadata.registration_endpoint };
  return {
    kind: "none",
    problem:
      "its authorization server accepts neither client ID metadata documents nor dynamic registration: register a client there yourself (redirect URI below) and paste its client ID",
  };
}

const LOOPBACK = /^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\]|localhost)(:\d+)?\//;
/** A loopback address literal: a name (even `localhost`) may resolve elsewhere, so no document is published on one. */
const LOOPBACK_ADDRESS = /^http:\/\/(127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?\//;

/** `native` for a loopback callback (local use), `web` otherwise, as DCR clients MUST say (2026-07-28). */
export function applicationTypeFor(redirectUri: string): "web" | "native" {
  return LOOPBACK.test(redirectUri) ? "native" : "web";
}

/**
 * Loadout's metadata document URL for this origin: https in production; plain http only on a
 * loopback address, and only where loopback upstreams are allowed (local use and tests). Null
 * otherwise (then Loadout registers dynamically).
 */
export function metadataDocumentUrl(origin: string, allowLoopback: boolean): string | null {
  const url = `${origin}/oauth/client-metadata.json`;
  if (url.startsWith("https://")) return url;
  return allowLoopback && LOOPBACK_ADDRESS.test(url) ? url : null;
}

/** What Loadout says of itself as a client, in its metadata document and its dynamic registrations. */
export function clientMetadata(origin: string) {
  const redirectUri = `${origin}/oauth/upstream/callback`;
  return {
    client_name: "Loadout",
    client_uri: origin,
    redirect_uris: [redirectUri],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
    application_type: applicationTypeFor(redirectUri),
  };
}

/** The document itself: the client_id is its own URL, and its one redirect URI the callback. */
export function clientMetadataDocument(origin: string) {
  return { client_id: `${origin}/oauth/client-metadata.json`, ...clientMetadata(origin) };
}

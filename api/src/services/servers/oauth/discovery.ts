import {
  type AuthorizationServerMetadata,
  checkUpstreamUrl,
  discoverUpstreamAuth,
  UpstreamAuthProblem,
  UpstreamRefused,
} from "@loadout/workers";
import { authorizationServerProblem, resourceMatches } from "../../../domain/upstream-oauth/metadata";
import type { ServerDeps } from "../upstreams";

export interface ServerAuth {
  /** The resource indicator to send (the metadata's `resource`, verbatim). */
  resource: string;
  issuer: string;
  metadata: AuthorizationServerMetadata;
  scope: string | null;
}

/** Why an upstream that asks for OAuth cannot be signed in to, as the user reads it. */
export class OAuthUnusable extends Error {
  override readonly name = "OAuthUnusable";
  constructor(
    message: string,
    /** Nothing says the server does OAuth (no metadata, no challenge naming any). */
    readonly notOAuth = false,
  ) {
    super(message);
  }
}

/**
 * Discovery for a server that answered 401 (PROTOCOLS.md §5.4), through the SSRF guard with size
 * and time caps, and Loadout's checks on what it found: the resource is this server, the
 * authorization server may be reached, offers the code flow with PKCE S256, on https endpoints.
 */
export async function discoverServerAuth(
  deps: ServerDeps,
  serverUrl: string,
  challenge: string | null,
): Promise<ServerAuth> {
  const oauth = deps.oauth;
  if (!oauth)
    throw new OAuthUnusable("this deployment cannot sign in to remote servers (no resolver for the SSRF guard)");
  let found: Awaited<ReturnType<typeof discoverUpstreamAuth>>;
  try {
    found = await discoverUpstreamAuth(serverUrl, challenge, oauth.fetch);
  } catch (error) {
    if (error instanceof UpstreamAuthProblem)
      throw new OAuthUnusable(`The server asks for a sign-in, but ${error.message}.`, error.noMetadata);
    throw error;
  }
  const { resource, issuer, metadata, scope } = found;
  if (!resourceMatches(resource.resource, serverUrl))
    throw new OAuthUnusable(
      `The server's protected-resource metadata is for ${resource.resource}, not ${serverUrl}; Loadout does not sign in to it.`,
    );
  try {
    // The guard again, by name, for a clear reason (the fetch refused it already if it was reached).
    await checkUpstreamUrl(oauth.guard, new URL(issuer));
  } catch (error) {
    if (error instanceof UpstreamRefused)
      throw new OAuthUnusable(`The server's authorization server ${issuer} may not be reached: ${error.message}.`);
    throw error;
  }
  const problem = authorizationServerProblem(metadata, deps.allowLoopback);
  if (problem) throw new OAuthUnusable(`Loadout cannot sign in at ${issuer}: ${problem}.`);
  return { resource: resource.resource, issuer, metadata, scope };
}

/** What the authorization server needs from the deployment, beyond the database. */
export interface OAuthDeps {
  /** LOADOUT_ALLOW_LOOPBACK_UPSTREAMS: metadata documents may be served on loopback (local use and tests). */
  allowLoopback: boolean;
  /** Resolves a host for the SSRF guard; without it, metadata documents cannot be fetched. */
  resolveHost?: (host: string) => Promise<string[]>;
  /** The fetch under the SSRF guard (tests substitute one). */
  fetch?: typeof fetch;
}

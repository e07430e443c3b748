/**
 * The authorization response: the registered redirect URI with the code (or the error), `state`
 * and `iss` (RFC 9207) added to whatever query it already has.
 */
export function authorizationResponseUrl(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

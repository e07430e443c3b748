/** When an access token is refreshed, and which scope a sign-in asks for. */

/** Refreshed this long before it expires, so a call never leaves with a token about to lapse. */
export const REFRESH_MARGIN_MS = 60_000;

/** Whether a token expiring at `expiresAt` should be refreshed before it is used now. */
export function needsRefresh(expiresAt: Date | null, now: Date, marginMs = REFRESH_MARGIN_MS): boolean {
  return expiresAt !== null && expiresAt.getTime() - marginMs <= now.getTime();
}

/** When a token answered with `expires_in` (seconds) expires; null when the server did not say. */
export function expiryOf(expiresIn: unknown, now: Date): Date | null {
  if (typeof expiresIn !== "number" || !Number.isFinite(expiresIn) || expiresIn <= 0) return null;
  return new Date(now.getTime() + Math.floor(expiresIn) * 1000);
}

const words = (scope: string | null | undefined) => (scope ?? "").split(/\s+/).filter(Boolean);

/** The union of scope strings, each token once, in first-seen order; null when empty. */
export function scopeUnion(...scopes: (string | null | undefined)[]): string | null {
  const seen = new Set<string>();
  for (const scope of scopes) for (const word of words(scope)) seen.add(word);
  return seen.size ? [...seen].join(" ") : null;
}

/** Whether `granted` lacks any of `wanted`'s scopes (a step-up is needed). */
export function lacksScope(granted: string | null, wanted: string | null): boolean {
  const have = new Set(words(granted));
  return words(wanted).some((w) => !have.has(w));
}

/** How long a sign-in may take between Connect and the callback. */
export const STATE_TTL_MS = 10 * 60_000;

/** At most this many step-ups in a row for one connection before the user is told to reconnect. */
export const MAX_STEP_UPS = 2;

/** Whose credentials a call uses: the team's shared connection, or the caller's own. */
export function ownerOf(mode: "per-user" | "shared", userId: string): string {
  return mode === "shared" ? "shared" : userId;
}

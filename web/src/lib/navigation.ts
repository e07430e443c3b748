export const HOME_PATH = "/skills/";
export const SIGN_IN_PATH = "/signin/";

// Only same-origin paths: `?next=https://evil.example` or `//evil.example` must not redirect away.
export function safeNextPath(raw: string | null): string | null {
  if (!raw?.startsWith("/") || raw.startsWith("//") || raw.startsWith("/\\")) return null;
  return raw;
}

export function nextPathFromLocation(): string | null {
  if (typeof window === "undefined") return null;
  return safeNextPath(new URLSearchParams(window.location.search).get("next"));
}

export function signInPathFor(currentPath: string): string {
  return `${SIGN_IN_PATH}?next=${encodeURIComponent(currentPath)}`;
}

// The setup link is `/setup/#token=…`: a fragment never reaches the server or its logs.
export function setupTokenFromHash(hash: string): string | null {
  const token = new URLSearchParams(hash.replace(/^#/, "")).get("token");
  return token?.trim() ? token.trim() : null;
}

// Carries the current `?next=` along (sign-in ⇄ sign-up), so the way back is not lost.
export function withNext(path: string): string {
  const next = nextPathFromLocation();
  return next ? `${path}?next=${encodeURIComponent(next)}` : path;
}

/** Workspace slugs: lowercase letters, digits and single hyphens, 2–39 characters, not a reserved word. */
export const SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){1,38}$/;

/** Words that appear in URLs where a slug goes (`/v1/workspaces/me`) or that would confuse readers. */
export const RESERVED_SLUGS = new Set([
  "me",
  "new",
  "api",
  "admin",
  "settings",
  "loadout",
  "mcp",
  "oauth",
  "v1",
  "www",
  "root",
  "system",
  "team",
  "teams",
]);

export function slugProblem(slug: string): string | null {
  if (!SLUG_PATTERN.test(slug)) {
    return "use 2–39 lowercase letters, digits or single hyphens, starting and ending with a letter or digit";
  }
  if (RESERVED_SLUGS.has(slug)) return `"${slug}" is reserved; choose another slug`;
  return null;
}

/** A personal workspace's slug proposed from an email's local part (`Ada.Lovelace+x@…` → `ada-lovelace`). */
export function slugFromEmail(email: string): string {
  const local = (email.split("@")[0] ?? "").split("+")[0] ?? "";
  const cleaned = local
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 30)
    .replace(/-+$/, "");
  const candidate = cleaned.length >= 2 ? cleaned : `user-${cleaned}`.replace(/-+$/, "");
  return slugProblem(candidate) === null ? candidate : `${candidate}-ws`;
}

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

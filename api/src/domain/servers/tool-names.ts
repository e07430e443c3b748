import { sha256 } from "@noble/hashes/sha2.js";

/** Tools Loadout serves itself; no proxied name may equal one of them. */
export const BUILT_IN_TOOL_NAMES = ["skills", "skill_edit", "search", "fetch", "find_tools", "call_tool"] as const;

/**
 * Clients add their own prefix inside a 64-character budget (Claude Code shows
 * `mcp__<connector>__<name>`), so a proxied name keeps to 48.
 */
export const MAX_TOOL_NAME_LENGTH = 48;

/** Server slugs: lowercase letters, digits and hyphens, 1–32 characters, a letter or digit at each end. */
export const SERVER_SLUG_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

const HASH_LENGTH = 6;
const HASH_SPACE = 36 ** HASH_LENGTH;

/**
 * Slugs that would let `<slug>_<tool>` equal a built-in: the built-in names themselves (to keep
 * names readable) and every part of a built-in before an underscore (`skill` + `edit` = `skill_edit`).
 */
const REFUSED_SLUGS: ReadonlySet<string> = new Set(
  BUILT_IN_TOOL_NAMES.flatMap((name) => {
    const prefixes: string[] = [name];
    for (let i = name.indexOf("_"); i > 0; i = name.indexOf("_", i + 1)) prefixes.push(name.slice(0, i));
    return prefixes;
  }),
);

export function serverSlugProblem(slug: string): string | null {
  if (!SERVER_SLUG_PATTERN.test(slug)) {
    return "use 1–32 lowercase letters, digits or hyphens, starting and ending with a letter or digit";
  }
  if (REFUSED_SLUGS.has(slug)) {
    return `"${slug}" would collide with Loadout's built-in tools (${BUILT_IN_TOOL_NAMES.join(", ")}); choose another slug`;
  }
  return null;
}

/**
 * The name clients see for `tool` of server `serverSlug`: `<slug>_<tool>`, or for a team's server
 * `<team>_<slug>_<tool>` (so a team's `github` and a member's own `github` never share names),
 * with every character outside `[a-zA-Z0-9_-]` replaced by `_`. A name past 48 characters keeps
 * its first 41 and ends with `_` and 6 base36 characters of a SHA-256 of the unshortened name, so
 * it depends on this server and tool alone and never changes when other servers come and go.
 *
 * Replacement alone can map two tools of one server to one name (`get.user`, `get_user`); the
 * catalog maps names back by lookup and must refuse such a duplicate rather than guess.
 */
export function proxiedToolName(serverSlug: string, tool: string, teamSlug: string | null = null): string {
  const original = teamSlug ? `${teamSlug}_${serverSlug}_${tool}` : `${serverSlug}_${tool}`;
  const safe = original.replace(/[^a-zA-Z0-9_-]/gu, "_");
  if (safe.length <= MAX_TOOL_NAME_LENGTH) return safe;
  const prefix = safe.slice(0, MAX_TOOL_NAME_LENGTH - HASH_LENGTH - 1);
  return `${prefix}_${shortHash(original)}`;
}

/** 6 base36 characters (~31 bits) from the first 6 bytes of SHA-256. */
function shortHash(text: string): string {
  const digest = sha256(new TextEncoder().encode(text));
  let value = 0;
  for (const byte of digest.subarray(0, 6)) value = value * 256 + byte;
  return (value % HASH_SPACE).toString(36).padStart(HASH_LENGTH, "0");
}

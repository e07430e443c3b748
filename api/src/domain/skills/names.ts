/** What an item is: a skill (`SKILL.md`) or a persona (`PERSONA.md`, the same shape). */
export type ItemKind = "skill" | "persona";

export type DocName = "SKILL.md" | "PERSONA.md";

export const NAME_MAX_CHARS = 64;

/**
 * Agent Skills names (agentskills.io): lowercase letters, digits and single inner hyphens. The
 * name is also the last segment of the item's `skill://` URI, so it must stay URL- and
 * folder-safe on every client.
 */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function skillNameProblem(name: string): string | null {
  if (name.length === 0) return "the name is empty; use 1–64 lowercase letters, digits or hyphens, like pdf-tools";
  if (name.length > NAME_MAX_CHARS) {
    return `the name is ${name.length} characters long; use at most ${NAME_MAX_CHARS}`;
  }
  if (/[^a-z0-9-]/.test(name)) {
    return "use only lowercase letters a–z, digits and hyphens (no capitals, spaces or underscores), like pdf-tools";
  }
  if (name.startsWith("-") || name.endsWith("-")) return "the name must not start or end with a hyphen";
  if (name.includes("--")) return "the name must not contain two hyphens in a row";
  return SKILL_NAME_PATTERN.test(name) ? null : "use lowercase letters, digits and single hyphens, like pdf-tools";
}

export function docNameFor(kind: ItemKind): DocName {
  return kind === "skill" ? "SKILL.md" : "PERSONA.md";
}

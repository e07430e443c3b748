import { skillNameProblem } from "../skills/names";

/**
 * Upstream servers' skills (SEP-2640, PROTOCOLS.md §3): which entries of an upstream's
 * `skills/list` Loadout serves again, how they are named beside the user's own, and how a file's
 * bytes are checked against the manifest that was pinned.
 */

export const SKILLS_EXTENSION = "io.modelcontextprotocol/skills";

/** What a host must accept per skill (§3.3): 512 resources and 16 MiB in all. */
export const UPSTREAM_SKILL_LIMITS = { files: 512, bytes: 16 * 1024 * 1024 };

const SCHEME = "skill://";
const DOC = "/SKILL.md";
const DIGEST = /^sha256:[0-9a-f]{64}$/;

/** Whether an upstream's capabilities declare the skills extension (only then is `skills/list` asked). */
export function declaresSkills(capabilities: Record<string, unknown>): boolean {
  const extensions = capabilities.extensions as Record<string, unknown> | undefined;
  const declared = extensions?.[SKILLS_EXTENSION];
  return Boolean(declared) && typeof declared === "object";
}

/** One file of a pinned manifest. */
export interface ManifestFile {
  uri: string;
  digest: string;
  size: number;
}

/** An upstream skill as stored (the definition of its `mcp_server_items` row): the entry as `skills/list` gave it. */
export interface UpstreamSkillDefinition {
  uri: string;
  frontmatter: { name: string; description: string; [k: string]: unknown };
  resources: ManifestFile[];
}

/**
 * Why an entry of an upstream's `skills/list` is not served, or null. Served: a `skill://` URI
 * ending in `/SKILL.md` whose last directory is the frontmatter's name (a valid Agent Skills
 * name), a description, and a complete manifest (§3.3: `SKILL.md` included, every file once,
 * `sha256:` digests, whole sizes) within the limits. A generated skill (`"dynamic"`) has no
 * manifest to pin, and another scheme could not be told apart from Loadout's own URIs at /mcp,
 * so neither is served.
 */
export function upstreamSkillProblem(entry: unknown): string | null {
  if (!entry || typeof entry !== "object") return "not an object";
  const e = entry as Record<string, unknown>;
  if (typeof e.uri !== "string" || e.uri.length > 2048) return "no uri";
  if (!e.uri.startsWith(SCHEME) || !e.uri.endsWith(DOC)) return `${e.uri} is not a skill:// URI of a SKILL.md`;
  const fm = e.frontmatter as Record<string, unknown> | undefined;
  if (!fm || typeof fm !== "object" || Array.isArray(fm)) return "no frontmatter";
  if (typeof fm.name !== "string" || skillNameProblem(fm.name) !== null)
    return "its frontmatter name is not a valid skill name";
  if (typeof fm.description !== "string" || fm.description.length === 0) return "its frontmatter has no description";
  const path = skillPathOf(e.uri);
  if (path.split("/").pop() !== fm.name) return `its URI's last segment is not its name "${fm.name}"`;
  if (e.resources === "dynamic") return "generated (resources: dynamic): there is no manifest to pin";
  if (!Array.isArray(e.resources)) return "no resources manifest";
  if (e.resources.length > UPSTREAM_SKILL_LIMITS.files)
    return `more than ${UPSTREAM_SKILL_LIMITS.files} files (${e.resources.length})`;
  const seen = new Set<string>();
  let bytes = 0;
  const root = `${e.uri.slice(0, -DOC.length)}/`;
  for (const r of e.resources as unknown[]) {
    const f = r as Record<string, unknown> | null;
    if (!f || typeof f.uri !== "string" || typeof f.digest !== "string" || typeof f.size !== "number")
      return "a manifest entry lacks uri, digest or size";
    if (!f.uri.startsWith(root)) return `${f.uri} is outside the skill's directory`;
    if (!DIGEST.test(f.digest)) return `${f.uri} has no sha256 digest`;
    if (!Number.isSafeInteger(f.size) || f.size < 0) return `${f.uri} has no whole size`;
    if (seen.has(f.uri)) return `${f.uri} is listed twice`;
    seen.add(f.uri);
    bytes += f.size;
  }
  if (!seen.has(e.uri)) return "its manifest does not list its SKILL.md";
  if (bytes > UPSTREAM_SKILL_LIMITS.bytes) return `more than ${UPSTREAM_SKILL_LIMITS.bytes} bytes in all (${bytes})`;
  return null;
}

/** `skill://acme/billing/refunds/SKILL.md` → `acme/billing/refunds`: the skill's path, prefix included. */
export function skillPathOf(uri: string): string {
  return uri.slice(SCHEME.length, uri.endsWith(DOC) ? -DOC.length : undefined);
}

/**
 * The part of a skill the pin covers (§3.5: approvals are bound to the full `{uri, digest}` set):
 * its URI, its frontmatter verbatim, and every file's URI, digest and size, in URI order (the
 * order an upstream lists them in is not a change).
 */
export function pinnedSkill(definition: Record<string, unknown>): Record<string, unknown> {
  const resources = Array.isArray(definition.resources) ? (definition.resources as Record<string, unknown>[]) : [];
  return {
    uri: definition.uri,
    frontmatter: definition.frontmatter ?? null,
    resources: resources
      .map((r) => ({ uri: r.uri, digest: r.digest, size: r.size }))
      .sort((a, b) => (String(a.uri) < String(b.uri) ? -1 : String(a.uri) > String(b.uri) ? 1 : 0)),
  };
}

/**
 * The origin an upstream skill is tagged with (§3.5), beside `personal` and `team:<slug>`:
 * `server:<prefix>`, the prefix its URIs are namespaced under at /mcp (the server's slug, or
 * `<team>_<slug>` for a team's server; see exposedUri).
 */
export function upstreamSkillOrigin(prefix: string): string {
  return `server:${prefix}`;
}

/**
 * The name an agent gives the `skills` tool for an upstream skill: `server:<prefix>/<skill path>`
 * (`server:docs/pdf`, `server:acme_docs/billing/refunds`). Skill and team names are lowercase
 * letters, digits and hyphens, so a `:` tells it from a personal `name` and a team's `team/name`
 * before either is looked up.
 */
export function upstreamSkillAddress(prefix: string, uri: string): string {
  return `server:${prefix}/${skillPathOf(uri)}`;
}

/** Whether a name given to the `skills` tool names an upstream skill (see upstreamSkillAddress). */
export function isUpstreamSkillAddress(name: string): boolean {
  return name.startsWith("server:");
}

/**
 * Why bytes the upstream served for a manifest file may not be passed on, or null: a size that
 * differs (treated as a digest mismatch, §3.3), or a digest that differs. `digestOf` is the
 * Skills extension's digest of the raw bytes.
 */
export function fileMismatch(
  file: ManifestFile,
  bytes: Uint8Array,
  digestOf: (b: Uint8Array) => string,
): string | null {
  if (bytes.byteLength !== file.size)
    return `the server served ${bytes.byteLength} bytes where the approved manifest says ${file.size}`;
  const served = digestOf(bytes);
  if (served !== file.digest)
    return `the bytes the server served hash to ${served}, not to the approved manifest's ${file.digest}`;
  return null;
}

/** A read content's raw bytes: its text as UTF-8, or its base64 blob decoded; null when it has neither. */
export function bytesOf(content: Record<string, unknown>): Uint8Array | null {
  if (typeof content.text === "string") return new TextEncoder().encode(content.text);
  if (typeof content.blob !== "string") return null;
  try {
    const binary = atob(content.blob);
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    return bytes;
  } catch {
    return null;
  }
}

/** The content a read served for `uri`: the entry of that URI, or the only one. */
export function servedContent(result: Record<string, unknown>, uri: string): Record<string, unknown> | undefined {
  const contents = Array.isArray(result.contents) ? (result.contents as Record<string, unknown>[]) : [];
  return contents.find((c) => c?.uri === uri) ?? (contents.length === 1 ? contents[0] : undefined);
}

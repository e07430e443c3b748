import type { Database } from "@loadout/db";
import {
  bytesOf,
  type ManifestFile,
  servedContent,
  type UpstreamSkillDefinition,
  upstreamSkillAddress,
  upstreamSkillOrigin,
} from "../../domain/servers/upstream-skills";
import type { ServerDeps } from "../servers/upstreams";
import { activeItems, type McpSession } from "./catalog";
import { relayRequest } from "./proxied";
import { SkillFileWithheld } from "./relayed-items";
import { exposedUriOf, type SessionItem, sessionSkillItems } from "./session-items";

/**
 * Upstream servers' skills, served beside the user's own (DESIGN.md "Upstream skills"): the
 * skills of the session's active servers that declared the Skills extension, each approved with
 * its pin (URI, frontmatter, every file's digest and size) unchanged, enabled, and in plan and goal
 * modes marked safe; namespaced under the server's prefix; tagged with their origin; and left out
 * where one of the user's own skills or personas has the same name. Files are fetched only when
 * read, and only those the approved manifest lists, each checked against it.
 */

/** One upstream skill a session may use, as Loadout serves it. */
export interface UpstreamSkill {
  item: SessionItem;
  /** The entry as approved: what is served, and what every read is checked against. */
  definition: UpstreamSkillDefinition;
  /** `server:<prefix>`. */
  origin: string;
  /** The `skills` tool's name for it: `server:<prefix>/<skill path>`. */
  address: string;
  /** Its SKILL.md URI at /mcp: `skill://_servers/<prefix>/<skill path>/SKILL.md`. */
  uri: string;
  /** Its files, by their URIs at /mcp. */
  files: (ManifestFile & { exposed: string; path: string })[];
}

const prefixOf = (item: SessionItem) => (item.team ? `${item.team}_${item.server.slug}` : item.server.slug);

function skillOf(item: SessionItem): UpstreamSkill {
  const definition = (item.row.approvedDefinition ?? item.row.definition) as unknown as UpstreamSkillDefinition;
  const prefix = prefixOf(item);
  const root = definition.uri.slice(0, -"SKILL.md".length);
  return {
    item,
    definition,
    origin: upstreamSkillOrigin(prefix),
    address: upstreamSkillAddress(prefix, definition.uri),
    uri: item.row.exposedKey,
    files: definition.resources.map((f) => ({
      uri: f.uri,
      digest: f.digest,
      size: f.size,
      exposed: exposedUriOf(item, f.uri),
      path: f.uri.slice(root.length),
    })),
  };
}

/** The upstream skills this session may use, in the servers' order (see the module's comment). */
export async function sessionUpstreamSkills(
  db: Database,
  deps: Pick<ServerDeps, "hot">,
  session: McpSession,
): Promise<UpstreamSkill[]> {
  const items = await sessionSkillItems(db, deps, session);
  if (items.length === 0) return [];
  // The user's own item wins a name clash: an agent told of two "pdf" skills would not know which.
  const own = new Set((await activeItems(db, session)).map((i) => i.name));
  const seen = new Set<string>();
  const skills: UpstreamSkill[] = [];
  for (const item of items) {
    const skill = skillOf(item);
    if (own.has(skill.definition.frontmatter.name) || seen.has(skill.uri)) continue;
    seen.add(skill.uri);
    skills.push(skill);
  }
  return skills;
}

/** The upstream skill whose SKILL.md is at this URI at /mcp, or whose `skills` tool name this is. */
export async function findUpstreamSkill(
  db: Database,
  deps: Pick<ServerDeps, "hot">,
  session: McpSession,
  by: { uri: string } | { address: string },
): Promise<UpstreamSkill | null> {
  const skills = await sessionUpstreamSkills(db, deps, session);
  return skills.find((s) => ("uri" in by ? s.uri === by.uri : s.address === by.address)) ?? null;
}

/** What a read of an upstream skill's file gives: its bytes, checked; or why it is withheld. */
export type SkillFileRead =
  | { ok: true; skill: UpstreamSkill; file: UpstreamSkill["files"][number]; bytes: Uint8Array; mimeType?: string }
  | { ok: false; skill: UpstreamSkill; reason: string };

/**
 * Reads one file of a session's upstream skill (by its URI at /mcp) from the upstream, through
 * the relay with every check of dispatch (the server active, the skill's pin), and checks the bytes
 * against the approved manifest: a size or digest that differs withholds the file, with the reason
 * (a verification failure is Loadout's finding, not the upstream's error). Null when no skill of
 * the session lists the URI: a file the manifest does not list is never asked for.
 */
export async function readUpstreamSkillFile(
  db: Database,
  deps: ServerDeps,
  session: McpSession,
  exposed: string,
  options: { now: Date; signal?: AbortSignal },
): Promise<SkillFileRead | null> {
  for (const skill of await sessionUpstreamSkills(db, deps, session)) {
    const file = skill.files.find((f) => f.exposed === exposed);
    if (file) return readFile(db, deps, session, skill, file, options);
  }
  return null;
}

/** Reads a file of a skill in hand by its path under the skill's directory (`SKILL.md`, `references/a.md`). */
export async function readUpstreamSkillPath(
  db: Database,
  deps: ServerDeps,
  session: McpSession,
  skill: UpstreamSkill,
  path: string,
  options: { now: Date; signal?: AbortSignal },
): Promise<SkillFileRead | null> {
  const file = skill.files.find((f) => f.path === path);
  return file ? readFile(db, deps, session, skill, file, options) : null;
}

async function readFile(
  db: Database,
  deps: ServerDeps,
  session: McpSession,
  skill: UpstreamSkill,
  file: UpstreamSkill["files"][number],
  options: { now: Date; signal?: AbortSignal },
): Promise<SkillFileRead> {
  const withheld = (why: string): SkillFileRead => ({
    ok: false,
    skill,
    reason: `${file.path} of ${skill.address} is withheld: ${why}. Nothing of it was passed on; the server may have changed the skill since it was approved (press Test on its page in the Loadout console, then review it).`,
  });
  let result: Record<string, unknown>;
  try {
    // The relay checks the bytes against the approved manifest (see relayWithItems).
    result = await relayRequest(
      db,
      session,
      deps,
      skill.item.server,
      "resources/read",
      { uri: file.uri },
      { now: options.now, ...(options.signal ? { signal: options.signal } : {}) },
    );
  } catch (error) {
    if (error instanceof SkillFileWithheld) return withheld(error.why);
    throw error;
  }
  const content = servedContent(result, file.uri);
  const bytes = content ? bytesOf(content) : null;
  if (!bytes) return withheld("the server answered the read without its content");
  const mimeType = typeof content?.mimeType === "string" ? content.mimeType : undefined;
  return { ok: true, skill, file, bytes, ...(mimeType ? { mimeType } : {}) };
}

import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import { VIEW_DIGEST_KEY } from "../apps/ui";
import { proxiedToolName } from "./tool-names";
import { canonicalJson, type PinState, pinState } from "./tools";
import { declaresSkills, pinnedSkill } from "./upstream-skills";

/**
 * What a server offers besides tools, each pinned on its own (the `kind` column of
 * mcp_server_items): a resource, a resource template, a prompt, or a skill of the Skills
 * extension (see upstream-skills.ts).
 */
export type ServerItemKind = "resource" | "template" | "prompt" | "skill";

export const ITEM_KINDS: readonly ServerItemKind[] = ["resource", "template", "prompt", "skill"];

/** Per kind: the listing request, the field of its result that holds the items, and the capability that offers it. */
export const ITEM_LISTINGS: Record<ServerItemKind, { method: string; field: string; capability: string }> = {
  resource: { method: "resources/list", field: "resources", capability: "resources" },
  template: { method: "resources/templates/list", field: "resourceTemplates", capability: "resources" },
  prompt: { method: "prompts/list", field: "prompts", capability: "prompts" },
  skill: { method: "skills/list", field: "skills", capability: "extensions" },
};

/** Whether an upstream's capabilities offer a kind: skills only where the skills extension is declared. */
export function offersKind(kind: ServerItemKind, capabilities: Record<string, unknown>): boolean {
  return kind === "skill" ? declaresSkills(capabilities) : Boolean(capabilities[ITEM_LISTINGS[kind].capability]);
}

/** The kind a listing request lists, or null for any other method. */
export function kindListedBy(method: string): ServerItemKind | null {
  return ITEM_KINDS.find((kind) => ITEM_LISTINGS[kind].method === method) ?? null;
}

/** What identifies an item upstream (a resource's URI, a template's URI template, a prompt's name); null when it has none. */
export function itemKey(kind: ServerItemKind, definition: Record<string, unknown>): string | null {
  const field = kind === "resource" || kind === "skill" ? "uri" : kind === "template" ? "uriTemplate" : "name";
  const value = definition[field];
  return typeof value === "string" && value.length > 0 && value.length <= 2048 ? value : null;
}

/**
 * The part of a definition the pin covers: what tells an agent what the item is and what it is
 * for. A resource's size or annotations may change without a review; its name, description or
 * type may not. A prompt's arguments are part of it. A skill's pin is its URI, frontmatter and
 * whole manifest (see pinnedSkill).
 */
function pinnedPart(kind: ServerItemKind, d: Record<string, unknown>): Record<string, unknown> {
  if (kind === "skill") return pinnedSkill(d);
  const base = { name: d.name, title: d.title, description: d.description ?? "" };
  if (kind === "prompt") return { ...base, arguments: d.arguments ?? [] };
  // A view's content is pinned too, by the digest recorded when it was listed (see VIEW_DIGEST_KEY).
  const viewDigest = d[VIEW_DIGEST_KEY];
  return { ...base, key: itemKey(kind, d), mimeType: d.mimeType, ...(viewDigest ? { viewDigest } : {}) };
}

/**
 * A resource as an upstream lists it now, with the view digest its stored row recorded: the
 * listing cannot carry the content, so its pin is compared on everything else (the content is
 * checked where a read is passed on, see viewContentProblem).
 */
export function withRecordedDigest(
  listed: Record<string, unknown>,
  stored: Record<string, unknown> | undefined,
): Record<string, unknown> {
  const digest = stored?.[VIEW_DIGEST_KEY];
  return digest === undefined ? listed : { ...listed, [VIEW_DIGEST_KEY]: digest };
}

/** The pin of an item: SHA-256 of its kind and pinned part. */
export function itemHash(kind: ServerItemKind, definition: Record<string, unknown>): string {
  const text = canonicalJson({ kind, ...pinnedPart(kind, definition) });
  return `sha256:${bytesToHex(sha256(new TextEncoder().encode(text)))}`;
}

/** Schemes whose URIs keep their scheme at /mcp: hosts render `ui://` views and skills clients read `skill://`. */
const KEPT_SCHEMES = ["ui://", "skill://"];

/**
 * The URI (or URI template) clients see at /mcp for an upstream's `uri`: under the server's own
 * prefix, so that two servers' URIs never collide with each other or with Loadout's own
 * (`skill://<name>/…`, `ui://loadout/…`). `ui://x` becomes `ui://_servers/<prefix>/x` and
 * `skill://x` becomes `skill://_servers/<prefix>/x` (`_` starts no skill name); anything else
 * becomes `loadout://servers/<prefix>/<uri>`. The prefix is the slug, or `<team>_<slug>` for a
 * team's server. Mapped back by lookup (see services/servers/items.ts), never by cutting the string.
 */
export function exposedUri(uri: string, slug: string, team: string | null): string {
  const prefix = team ? `${team}_${slug}` : slug;
  const kept = KEPT_SCHEMES.find((scheme) => uri.startsWith(scheme));
  if (kept) return `${kept}_servers/${prefix}/${uri.slice(kept.length)}`;
  return `loadout://servers/${prefix}/${uri}`;
}

/** What identifies an item at /mcp: a prompt's `<slug>_<name>` (as tools are named), a URI under the server's prefix. */
export function exposedItemKey(kind: ServerItemKind, key: string, slug: string, team: string | null): string {
  return kind === "prompt" ? proxiedToolName(slug, key, team) : exposedUri(key, slug, team);
}

/** An item's settings as stored, the part the rules read. */
export interface ItemSettings {
  hash: string;
  approvedHash: string | null;
  enabled: boolean;
  planSafe: boolean;
  /** What Loadout found when it was last used, which withholds it until listed again (see mcp_server_items.problem). */
  problem?: string | null;
}

export const ITEM_NOUNS: Record<ServerItemKind, string> = {
  resource: "Resource",
  template: "Resource template",
  prompt: "Prompt",
  skill: "Skill",
};

/**
 * Why an item may not be listed, read or completed for a session in `mode`, or null: unknown
 * (never reviewed), new or changed since approval, switched off, or in plan and goal modes not
 * marked safe there.
 */
export function itemWithheldBecause(item: ItemSettings | undefined, mode: string): string | null {
  if (!item) return "not reviewed yet: press Test on the server's page in the Loadout console, then review it";
  const pin: PinState = pinState(item.hash, item.approvedHash);
  if (pin === "new") return "not approved yet: review it in the Loadout console";
  if (pin === "changed")
    return "its definition changed since it was approved: review the change in the Loadout console";
  if (item.problem)
    return `withheld: ${item.problem} (press Test on the server's page in the Loadout console to check it again)`;
  if (!item.enabled) return "switched off on the server's page in the Loadout console";
  if (mode !== "agent" && !item.planSafe)
    return `not offered in ${mode} mode: mark it safe for plan mode in the Loadout console`;
  return null;
}

/**
 * A tool result's resource links and embedded resources with their URIs as clients at /mcp know
 * them (`expose`, see exposedUri), so that a link an upstream's tool returns can be read back
 * through Loadout. Other blocks are kept as they are.
 */
export function withExposedUris<T extends { content?: unknown }>(result: T, expose: (uri: string) => string): T {
  if (!Array.isArray(result.content)) return result;
  let changed = false;
  const content = (result.content as Record<string, unknown>[]).map((block) => {
    if (block?.type === "resource_link" && typeof block.uri === "string") {
      changed = true;
      return { ...block, uri: expose(block.uri) };
    }
    const resource = block?.resource as Record<string, unknown> | undefined;
    if (block?.type === "resource" && typeof resource?.uri === "string") {
      changed = true;
      return { ...block, resource: { ...resource, uri: expose(resource.uri) } };
    }
    return block;
  });
  return changed ? { ...result, content } : result;
}

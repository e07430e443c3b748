import type { Database } from "@loadout/db";
import { UriTemplate } from "@modelcontextprotocol/server";
import { isViewUri, VIEW_DIGEST_KEY, viewContentProblem } from "../../domain/apps/ui";
import {
  ITEM_LISTINGS,
  ITEM_NOUNS,
  itemWithheldBecause,
  kindListedBy,
  type ServerItemKind,
  withRecordedDigest,
} from "../../domain/servers/items";
import { bytesOf, fileMismatch, type ManifestFile, servedContent } from "../../domain/servers/upstream-skills";
import { digestOf } from "../../domain/skills/digest";
import { AppError } from "../../errors";
import type { HotCaches } from "../cache/hot";
import { itemKeyOf, noteListedItems, recordItemProblem, type ServerItemRow, serverItems } from "../servers/items";
import type { ServerRow } from "../servers/upstreams";

/** What a relayed request other than a listing names: the item whose pin and settings govern it. */
type Named = { kind: ServerItemKind; key: string } | { uri: string } | { directory: string } | null;

/** The item a request names (prompts/get, resources/read, completion/complete…); null for one that names none (ping). */
function namedBy(method: string, params: Record<string, unknown> | undefined): Named {
  const p = params ?? {};
  const text = (v: unknown) => (typeof v === "string" ? v : "");
  switch (method) {
    case "prompts/get":
      return { kind: "prompt", key: text(p.name) };
    case "skills/get":
      return { kind: "skill", key: text(p.uri) };
    case "resources/directory/read":
      return { directory: text(p.uri) };
    case "resources/read":
    case "resources/subscribe":
    case "resources/unsubscribe":
      return { uri: text(p.uri) };
    case "completion/complete": {
      const ref = (p.ref ?? {}) as Record<string, unknown>;
      if (ref.type === "ref/prompt") return { kind: "prompt", key: text(ref.name) };
      return { kind: "template", key: text(ref.uri) };
    }
    default:
      return null;
  }
}

const describe = (kind: ServerItemKind, key: string) => `${ITEM_NOUNS[kind]} ${JSON.stringify(key.slice(0, 200))}`;

/** Templates compiled once per row (a row is replaced, never changed, when its listing changes). */
const compiled = new WeakMap<ServerItemRow, UriTemplate | null>();
function templateOf(row: ServerItemRow): UriTemplate | null {
  if (!compiled.has(row)) {
    let template: UriTemplate | null = null;
    try {
      template = new UriTemplate(row.key);
    } catch {
      template = null;
    }
    compiled.set(row, template);
  }
  return compiled.get(row) ?? null;
}

/** Whether a directory URI is a skill's root (its SKILL.md's folder) or a folder within it. */
function inSkill(skillUri: string, directory: string): boolean {
  const root = skillUri.slice(0, skillUri.lastIndexOf("/"));
  const asked = directory.replace(/\/+$/, "");
  // No dot segments: a folder "within" the skill must not climb out of it.
  return asked === root || (asked.startsWith(`${root}/`) && !/\/\.\.?(\/|$)/.test(asked.slice(root.length)));
}

/** A served skill file's bytes did not match the approved manifest: `why`, for the caller's own words. */
export class SkillFileWithheld extends AppError {
  constructor(
    readonly why: string,
    uri: string,
  ) {
    super(
      "forbidden",
      `${JSON.stringify(uri.slice(0, 200))} is withheld: ${why}. Nothing of it was passed on; the server may have changed the skill since it was approved (press Test on its page in the Loadout console, then review it).`,
    );
  }
}

/** The approved manifest's entry for this upstream URI. */
function manifestFile(row: ServerItemRow, uri: string): ManifestFile | undefined {
  const resources = (row.approvedDefinition ?? row.definition).resources;
  if (!Array.isArray(resources)) return undefined;
  const entry = resources.find((r) => (r as { uri?: unknown } | null)?.uri === uri) as ManifestFile | undefined;
  return entry && typeof entry.digest === "string" && typeof entry.size === "number" ? entry : undefined;
}

/** Whether a skill row's pinned manifest lists this upstream URI. */
function inManifest(row: ServerItemRow, uri: string): boolean {
  const resources = row.definition.resources;
  return Array.isArray(resources) && resources.some((r) => (r as { uri?: unknown } | null)?.uri === uri);
}

/**
 * Why this request may not reach the upstream for a session in `mode`, or null. A resource is
 * readable when it was listed and is served, or when its URI matches a served template and no
 * listed resource of that URI is withheld; a prompt or a completion by its own item.
 */
export function relayedItemRefusal(
  rows: ServerItemRow[],
  method: string,
  params: Record<string, unknown> | undefined,
  mode: string,
): string | null {
  const named = namedBy(method, params);
  if (!named) return null;
  if ("directory" in named) {
    // A directory of a served skill (its root or a folder within it), as the skills extension reads them.
    const within = rows.some(
      (r) => r.kind === "skill" && itemWithheldBecause(r, mode) === null && inSkill(r.key, named.directory),
    );
    return within
      ? null
      : `${JSON.stringify(named.directory.slice(0, 200))} is not a directory of a skill served here.`;
  }
  if ("kind" in named) {
    const row = rows.find((r) => r.kind === named.kind && r.key === named.key);
    const withheld = itemWithheldBecause(row, mode);
    return withheld && `${describe(named.kind, named.key)} is ${withheld}.`;
  }
  // A file of a served skill is read under the skill's pin: its manifest lists it (the bytes are
  // checked against it where they are passed on, see services/mcp/upstream-skills.ts).
  if (rows.some((r) => r.kind === "skill" && itemWithheldBecause(r, mode) === null && inManifest(r, named.uri)))
    return null;
  const listed = rows.find((r) => r.kind === "resource" && r.key === named.uri);
  if (listed) {
    const withheld = itemWithheldBecause(listed, mode);
    return withheld && `${describe("resource", named.uri)} is ${withheld}.`;
  }
  const templates = rows.filter((r) => r.kind === "template" && templateOf(r)?.match(named.uri));
  if (templates.some((t) => itemWithheldBecause(t, mode) === null)) return null;
  const reason = templates[0]
    ? itemWithheldBecause(templates[0], mode)
    : "not among the resources or templates it listed: press Test on the server's page in the Loadout console, then review what it offers";
  return `${describe("resource", named.uri)} is ${reason}.`;
}

/**
 * A listing's items that this session may see: each known, approved with its pin unchanged,
 * enabled, and in plan and goal modes marked safe. Returns the items the store has not seen as
 * they are now (new or changed), to be noted for review.
 */
export function servedListing(
  rows: ServerItemRow[],
  kind: ServerItemKind,
  result: Record<string, unknown>,
  mode: string,
): { result: Record<string, unknown>; unseen: Record<string, unknown>[] } {
  const field = ITEM_LISTINGS[kind].field;
  const listed = Array.isArray(result[field]) ? (result[field] as Record<string, unknown>[]) : [];
  const byKey = new Map(rows.filter((r) => r.kind === kind).map((r) => [r.key, r]));
  const served: Record<string, unknown>[] = [];
  const unseen: Record<string, unknown>[] = [];
  for (const item of listed) {
    const found = itemKeyOf(kind, item);
    const row = found ? byKey.get(found.key) : undefined;
    const hash =
      row && kind === "resource" ? itemKeyOf(kind, withRecordedDigest(item, row.definition))?.hash : found?.hash;
    if (!row || row.hash !== hash) {
      unseen.push(item);
      continue;
    }
    if (itemWithheldBecause(row, mode) === null) served.push(item);
  }
  return { result: { ...result, [field]: served }, unseen };
}

/**
 * Relays a request other than a tool call under the server's item pins: a listing is filtered
 * (and what it showed new is noted for review), a request naming a withheld item is refused before
 * anything is sent. What it writes is read back by the very next request on this instance
 * (HotCaches.wroteHere).
 */
export async function relayWithItems(
  db: Database,
  hot: HotCaches,
  server: ServerRow,
  mode: string,
  method: string,
  params: Record<string, unknown> | undefined,
  now: Date,
  send: () => Promise<Record<string, unknown>>,
): Promise<Record<string, unknown>> {
  const rows = await serverItems(db, hot, server);
  const refused = relayedItemRefusal(rows, method, params, mode);
  if (refused) throw new AppError("forbidden", refused);
  const result = await send();
  // A view's content is pinned: passed on only as it was when approved.
  if (method === "resources/read" && isViewUri(params?.uri)) {
    const row = rows.find((r) => r.kind === "resource" && r.key === params.uri);
    const problem = row
      ? viewContentProblem(row.definition[VIEW_DIGEST_KEY], result)
      : "not among the resources the server listed (a view is served only as a listed resource)";
    if (problem)
      throw new AppError("forbidden", `The view ${JSON.stringify(String(params.uri).slice(0, 200))} is ${problem}.`);
  }
  // A file of a served skill is passed on only as its approved manifest says; a mismatch withholds
  // the whole skill until the server is tested again (at /mcp, and as relayed at /mcp/s).
  if (method === "resources/read" && typeof params?.uri === "string") {
    const uri = params.uri;
    const skill = rows.find((r) => r.kind === "skill" && itemWithheldBecause(r, mode) === null && inManifest(r, uri));
    const file = skill ? manifestFile(skill, uri) : undefined;
    if (skill && file) {
      const content = servedContent(result, uri);
      const bytes = content ? bytesOf(content) : null;
      const mismatch = bytes ? fileMismatch(file, bytes, digestOf) : "the server answered the read without its content";
      if (mismatch) {
        const path = uri.slice(skill.key.lastIndexOf("/") + 1);
        await recordItemProblem(db, skill, `${path} did not match its approved manifest (${mismatch})`);
        hot.wroteHere();
        throw new SkillFileWithheld(mismatch, uri);
      }
    }
  }
  const kind = kindListedBy(method);
  if (!kind || result.resultType === "input_required") return result;
  const { result: served, unseen } = servedListing(rows, kind, result, mode);
  if (unseen.length) {
    await noteListedItems(db, server, kind, unseen, rows, now);
    hot.wroteHere();
  }
  return served;
}

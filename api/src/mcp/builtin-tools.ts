import type { z } from "zod";
import { inactiveBecause } from "../domain/activation";
import { CHARS_PER_TOKEN } from "../domain/instructions";
import { isUpstreamSkillAddress } from "../domain/servers/upstream-skills";
import { docNameFor } from "../domain/skills/names";
import type { ActionContext } from "../services/context";
import { activeItems, type McpSession, resolveAddress } from "../services/mcp/catalog";
import { versionChanges } from "../services/skills/changes";
import { createSkill } from "../services/skills/create";
import { findSkill, manifestWithContent, readBlob, versionManifest } from "../services/skills/lookup";
import { updateSkill } from "../services/skills/update";
import { SKILL_EDIT_VIEW_URI, SKILLS_VIEW_URI } from "./apps/views";
import type { LoadoutTool } from "./registry";
import { errorResult, failure, type ToolResult, textResult } from "./results";
import { fileChunkResult } from "./skill-chunks";
import {
  FETCH_TOOL_ANNOTATIONS,
  FetchToolInput,
  SEARCH_TOOL_ANNOTATIONS,
  SearchToolInput,
  SKILL_EDIT_TOOL_ANNOTATIONS,
  SKILLS_TOOL_ANNOTATIONS,
  SkillEditToolInput,
  SkillsToolInput,
} from "./tools";
import { getUpstreamSkill, upstreamSkillsListed } from "./upstream-skills-tool";

/**
 * Loadout's own tools, as the registry serves them on every path (see registry.ts): `skills`
 * always, `skill_edit` in agent mode only (in plan and goal modes nothing may change the world: it
 * is not even offered), `search` and `fetch` for ChatGPT clients and endpoints that opt in.
 */
export const SKILLS_TOOL: LoadoutTool<z.infer<typeof SkillsToolInput>> = {
  name: "skills",
  title: SKILLS_TOOL_ANNOTATIONS.title,
  description:
    'Your skills and personas from Loadout. action "list" gives every item active here with its description; action "get" gives an item\'s SKILL.md (or PERSONA.md), or another of its files with path, 20,000 characters at a time.',
  input: SkillsToolInput,
  annotations: SKILLS_TOOL_ANNOTATIONS,
  view: { resourceUri: SKILLS_VIEW_URI },
  run: ({ ctx, session, shared }, input) => callSkillsTool(ctx, session, input, shared),
};

export const SKILL_EDIT_TOOL: LoadoutTool<z.infer<typeof SkillEditToolInput>> = {
  name: "skill_edit",
  title: SKILL_EDIT_TOOL_ANNOTATIONS.title,
  description:
    'Create a skill or persona (name, description, instructions, files), or edit one: its description, instructions, files (a path mapped to null is removed) or state ("active"/"disabled"). The replaced version stays in history. Removing an item stays with the user.',
  input: SkillEditToolInput,
  annotations: SKILL_EDIT_TOOL_ANNOTATIONS,
  view: { resourceUri: SKILL_EDIT_VIEW_URI },
  run: ({ ctx, session }, input) => editSkill(ctx, session, input),
};

export const SEARCH_TOOL: LoadoutTool<z.infer<typeof SearchToolInput>> = {
  name: "search",
  title: SEARCH_TOOL_ANNOTATIONS.title,
  description:
    "Search your active skills and personas by words in their names and descriptions. Returns ids to pass to fetch.",
  input: SearchToolInput,
  annotations: SEARCH_TOOL_ANNOTATIONS,
  run: ({ ctx, session, origin }, { query }) => search(ctx, session, origin, query),
};

export const FETCH_TOOL: LoadoutTool<z.infer<typeof FetchToolInput>> = {
  name: "fetch",
  title: FETCH_TOOL_ANNOTATIONS.title,
  description: "Fetch a skill or persona by the id search gave: its whole SKILL.md or PERSONA.md.",
  input: FetchToolInput,
  annotations: FETCH_TOOL_ANNOTATIONS,
  run: ({ ctx, session, origin }, { id }) => fetchItem(ctx, session, origin, id),
};

/** The built-in tools a session is offered, in listing order. */
export function builtInTools(session: Pick<McpSession, "mode">, searchFetch: boolean): LoadoutTool[] {
  return [
    SKILLS_TOOL,
    ...(searchFetch ? [SEARCH_TOOL, FETCH_TOOL] : []),
    ...(session.mode === "agent" ? [SKILL_EDIT_TOOL] : []),
  ] as LoadoutTool[];
}

async function editSkill(
  ctx: ActionContext,
  session: McpSession,
  input: z.infer<typeof SkillEditToolInput>,
): Promise<ToolResult> {
  try {
    const slash = input.name.indexOf("/");
    const name = slash > 0 ? input.name.slice(slash + 1) : input.name;
    if (input.action === "create") {
      const workspace =
        slash > 0
          ? session.workspaces.find((w) => w.kind === "team" && w.slug === input.name.slice(0, slash))
          : session.workspaces.find((w) => w.kind === "personal");
      if (!workspace) return failure(`There is no team "${input.name.slice(0, slash)}" in this session.`);
      if (input.description === undefined || input.instructions === undefined)
        return failure("To create, give name, description and instructions.");
      const created = await createSkill({
        ctx,
        ws: workspace.slug,
        input: {
          kind: input.kind ?? "skill",
          name,
          description: input.description,
          instructions: input.instructions,
          files: Object.entries(input.files ?? {}).flatMap(([path, content]) =>
            content === null ? [] : [{ path, content }],
          ),
        },
      });
      const diff = await versionChanges(
        ctx.db,
        workspace.id,
        created.id,
        null,
        created.version,
        session.caches?.content,
      );
      return textResult(`Created ${created.kind} "${input.name}" (version ${created.version}).${filesLine(diff)}`, {
        name: input.name,
        version: created.version,
        revision: created.revision,
        ...diff,
      });
    }
    const resolved = await resolveAddress(ctx.db, session, input.name);
    if (!resolved.ok)
      return failure(
        `${resolved.message}${resolved.candidates.length ? ` Candidates: ${resolved.candidates.join(", ")}.` : ""}`,
      );
    const row = await findSkill(ctx.db, resolved.workspace.id, resolved.name);
    // An item scoped away from this session cannot be edited from it either; switching it
    // back on is the one edit allowed, so that "active" can undo "disabled".
    const outOfScope = inactiveBecause({ ...row, enabled: true }, session.project);
    if (outOfScope) return failure(`"${input.name}" cannot be edited from this session: it ${outOfScope}.`);
    const updated = await updateSkill({
      ctx,
      ws: resolved.workspace.slug,
      name: resolved.name,
      input: {
        revision: row.revision,
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.instructions !== undefined ? { instructions: input.instructions } : {}),
        ...(input.files
          ? {
              files: Object.fromEntries(
                Object.entries(input.files).map(([p, c]) => [p, c === null ? null : { content: c }]),
              ),
            }
          : {}),
        ...(input.state ? { enabled: input.state === "active" } : {}),
      },
    });
    const diff = await versionChanges(
      ctx.db,
      resolved.workspace.id,
      row.id,
      row.version,
      updated.version,
      session.caches?.content,
    );
    return textResult(
      `Saved "${input.name}": version ${updated.version}, ${updated.enabled ? "active" : "disabled"}.${filesLine(diff)}`,
      {
        name: input.name,
        version: updated.version,
        revision: updated.revision,
        state: updated.enabled ? "active" : "disabled",
        ...diff,
      },
    );
  } catch (error) {
    return errorResult(error, ctx);
  }
}

/** The text fallback's account of an edit's files (the structured result has each one's diff). */
function filesLine({ changes, more }: Awaited<ReturnType<typeof versionChanges>>): string {
  if (!changes.length) return "";
  const listed = changes.map((c) => `${c.path} (${c.status})`).join(", ");
  return ` Files: ${listed}${more ? ` and ${more} more` : ""}.`;
}

/**
 * The `skills` tool: `list` the items active here, or `get` one's document or file, a chunk at a
 * time. Scope is checked again at dispatch. Served by the SDK's server and by the pipeline alike.
 */
export async function callSkillsTool(
  ctx: ActionContext,
  session: McpSession,
  input: z.infer<typeof SkillsToolInput>,
  /**
   * The caller only reads the result (the pipeline's own answer): a `get` may then return the very object an
   * earlier call got, kept by content address (a skill's version never changes). The SDK's path
   * gets a fresh object, which it is free to change.
   */
  shared = false,
): Promise<ToolResult> {
  try {
    if (input.action === "list") {
      const items = await activeItems(ctx.db, session);
      const theirs = await upstreamSkillsListed(ctx, session);
      if (items.length === 0 && theirs.items.length === 0)
        return textResult("No skills or personas are active in this session.", { items: [] });
      const lines = items.map(
        (i) =>
          `- ${i.address}${i.kind === "persona" ? " (persona)" : ""} [${i.origin.kind === "team" ? `team ${i.origin.team}` : "personal"}]: ${i.description}`,
      );
      return textResult([...lines, ...theirs.lines].join("\n"), {
        items: [
          ...items.map((i) => ({
            name: i.address,
            kind: i.kind,
            origin: i.origin.kind === "team" ? `team:${i.origin.team}` : "personal",
            description: i.description,
            // What reading all of it would cost, at about four bytes a token (see estimateTokens).
            tokens: Math.ceil(i.totalBytes / CHARS_PER_TOKEN),
          })),
          ...theirs.items,
        ],
      });
    }
    if (!input.name) return failure('Give the item\'s name: skills(action="get", name="…").');
    if (isUpstreamSkillAddress(input.name)) return getUpstreamSkill(ctx, session, { ...input, name: input.name });
    const resolved = await resolveAddress(ctx.db, session, input.name);
    if (!resolved.ok)
      return failure(
        `${resolved.message}${resolved.candidates.length ? ` Candidates: ${resolved.candidates.join(", ")}.` : ""}`,
      );
    const row = resolved.row ?? (await findSkill(ctx.db, resolved.workspace.id, resolved.name).catch(() => null));
    if (!row) return failure(`There is no skill or persona "${input.name}" in this session.`);
    // Scope is checked again at dispatch: a session that listed the item before it was narrowed
    // must not read it now.
    const inactive = inactiveBecause(row, session.project);
    if (inactive) return failure(`"${input.name}" is not active for this session: it ${inactive}.`);
    const path = input.path ?? docNameFor(row.kind);
    const memoKey = `get\u0000${row.id}\u0000${row.version}\u0000${path}\u0000${input.start ?? 0}\u0000${input.name}\u0000${input.path ?? ""}`;
    const memo = shared ? (session.caches?.content.get(memoKey) as ToolResult | undefined) : undefined;
    if (memo) return memo;
    const manifest = await manifestWithContent(
      ctx.db,
      row.workspaceId,
      row.id,
      row.version,
      path,
      session.caches?.content,
    );
    const file = manifest?.files.find((f) => f.path === path);
    const bytes = manifest?.content;
    if (!file || !bytes)
      return failure(
        `"${input.name}" has no file "${path}". Its files: ${manifest?.files.map((f) => f.path).join(", ")}.`,
      );
    const { result, chars } = fileChunkResult({
      name: input.name,
      askedPath: input.path,
      path,
      kind: row.kind,
      docName: docNameFor(row.kind),
      start: input.start,
      bytes,
      digest: file.digest,
      files: manifest?.files ?? [],
    });
    // Kept for shared callers only: the SDK's path may change what it gets.
    if (shared) session.caches?.content.set(memoKey, result, 2 * chars + 1024);
    return result;
  } catch (error) {
    return errorResult(error, ctx);
  }
}

/** Ranks items by how many of the query's words their name and description contain. */
export function rankItems<T extends { address: string; description: string }>(items: T[], query: string): T[] {
  const words = query
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
  if (words.length === 0) return items.slice(0, 10);
  return items
    .map((item) => {
      const name = item.address.toLowerCase();
      const description = item.description.toLowerCase();
      const score = words.reduce((n, w) => n + (name.includes(w) ? 3 : 0) + (description.includes(w) ? 1 : 0), 0);
      return { item, score };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || (a.item.address < b.item.address ? -1 : 1))
    .slice(0, 10)
    .map((r) => r.item);
}

/** The console page of an item, for ChatGPT's citations. */
function consoleLink(origin: string, address: string): string {
  const slash = address.indexOf("/");
  return slash > 0
    ? `${origin}/skills/edit/?name=${encodeURIComponent(address.slice(slash + 1))}&ws=${encodeURIComponent(address.slice(0, slash))}`
    : `${origin}/skills/edit/?name=${encodeURIComponent(address)}&ws=me`;
}

async function search(ctx: ActionContext, session: McpSession, origin: string, query: string): Promise<ToolResult> {
  const results = rankItems(await activeItems(ctx.db, session), query).map((i) => ({
    id: i.address,
    title: `${i.address}: ${i.description}`.slice(0, 200),
    url: consoleLink(origin, i.address),
  }));
  return textResult(JSON.stringify({ results }));
}

async function fetchItem(ctx: ActionContext, session: McpSession, origin: string, id: string): Promise<ToolResult> {
  const resolved = await resolveAddress(ctx.db, session, id);
  if (!resolved.ok) return failure(resolved.message);
  const row = await findSkill(ctx.db, resolved.workspace.id, resolved.name).catch(() => null);
  const inactive = row ? inactiveBecause(row, session.project) : "is not in this session";
  if (!row || inactive) return failure(`"${id}" is not active for this session: it ${inactive}.`);
  const manifest = await versionManifest(ctx.db, row.workspaceId, row.id, row.version, session.caches?.content);
  const doc = manifest?.files.find((f) => f.path === docNameFor(row.kind));
  const body = doc
    ? new TextDecoder("utf-8", { ignoreBOM: true }).decode(
        await readBlob(ctx.db, row.workspaceId, doc.digest, session.caches?.content),
      )
    : "";
  return textResult(
    JSON.stringify({
      id,
      title: id,
      text: body,
      url: consoleLink(origin, id),
      metadata: {
        kind: row.kind,
        version: row.version,
        files: manifest?.files.map((f) => f.path) ?? [],
        untrusted: true,
      },
    }),
  );
}

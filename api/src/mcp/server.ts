import type { CallToolResult } from "@loadout/workers";
import { inputRequired, type ListToolsResult, McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import type { z } from "zod";
import { isActiveInProject } from "../domain/activation";
import { outcomeOfToolResult, type ResultOutcome } from "../domain/activity/outcomes";
import { ROOTS_INPUT_KEY } from "../domain/roots";
import { docNameFor } from "../domain/skills/names";
import { AppError } from "../errors";
import type { ActionContext } from "../services/context";
import { activeItems, type McpSession, resolveAddress } from "../services/mcp/catalog";
import type { ProxiedTool } from "../services/mcp/proxied";
import { createSkill } from "../services/skills/create";
import { findSkill, manifestWithContent, readBlob, versionManifest } from "../services/skills/lookup";
import { updateSkill } from "../services/skills/update";
import { toolError } from "./fast-lane";
import { registrySkillSource } from "./skills-source";
import {
  FETCH_TOOL_ANNOTATIONS,
  FetchToolInput,
  GET_CHUNK,
  SEARCH_TOOL_ANNOTATIONS,
  SearchToolInput,
  SKILL_EDIT_TOOL_ANNOTATIONS,
  SKILLS_TOOL_ANNOTATIONS,
  SkillEditToolInput,
  SkillsToolInput,
} from "./tools";

export const SERVER_INFO = { name: "loadout", title: "Loadout", version: "0.1.0" };

export type ToolResult = {
  content: { type: "text"; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

const text = (value: string, structured?: Record<string, unknown>): ToolResult => ({
  content: [{ type: "text", text: value }],
  ...(structured ? { structuredContent: structured } : {}),
});
const failure = (message: string): ToolResult => ({ content: [{ type: "text", text: message }], isError: true });

function fromError(error: unknown, ctx: ActionContext): ToolResult {
  if (error instanceof AppError) {
    const details = error.details?.map((d) => `- ${d.path}${d.line ? ` line ${d.line}` : ""}: ${d.message}`).join("\n");
    return failure(details ? `${error.message}\n${details}` : error.message);
  }
  return toolError(error, ctx);
}

/** Builds the MCP server for one request: the tools this session may use, and the instructions. */
export interface ServerOptions {
  instructions: string | null;
  /** Offer `search` and `fetch` (ChatGPT clients, and endpoints that opt in). */
  searchFetch: boolean;
  /** This server's origin, for the console links in fetch results. */
  origin: string;
  /**
   * What this request needs: a tools/call needs only the tool it names, a skills/* or resource
   * request only the extension. Building just that keeps per-request servers cheap; a handshake
   * or a listing gets everything.
   */
  needs?: { tool: string } | "extension" | "all";
  /** Told what became of a tool call, so the activity log need not read the answer again. */
  report?: (outcome: ToolOutcome) => void;
  /** Answer a tool call with a request for the client's roots (its project) instead. */
  askRoots?: boolean;
  /** The client is on the 2026-07-28 revision and declared elicitation: upstream input requests pass through. */
  passInputRequests?: boolean;
  /**
   * Upstream tools to serve (the listing, or the one tool a call names), and how to call one. A
   * single-server URL serves only these.
   */
  upstream?: {
    /** Upstream tools registered to be called (a tools/call names one). */
    tools: ProxiedTool[];
    /**
     * For a tools/list: the upstream tools' entries, answered next to the built-ins' without
     * registering each one (registering 1,000 tools per request costs more than the listing).
     */
    listing?: ProxiedTool["definition"][];
    only: boolean;
    call(
      tool: ProxiedTool,
      args: Record<string, unknown> | undefined,
      extra: UpstreamCallExtra,
    ): Promise<CallToolResult>;
  };
}

export interface UpstreamCallExtra {
  signal: AbortSignal;
  clientCapabilities?: Record<string, unknown>;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** A 2026-07-28 request: the upstream's input requests pass through, and this retry's answers go back. */
  inputRequired: { inputResponses?: Record<string, unknown>; requestState?: string } | null;
}

/**
 * A request's 2026-07-28 envelope (`io.modelcontextprotocol/…` keys of its `_meta`), which the SDK
 * lifts out of the `_meta` a handler sees.
 */
export function envelopeOf(ctx: ServerContext): Record<string, unknown> {
  return (ctx.mcpReq.envelope ?? {}) as Record<string, unknown>;
}

/**
 * What a call to an upstream tool carries of the client's request: its cancellation, its progress
 * token (the upstream's progress reported under it), and on 2026-07-28 for a client that can answer
 * them, the upstream's input rounds (Loadout's own roots answer stays with Loadout).
 */
export function upstreamCallExtra(ctx: ServerContext, passInputRequests: boolean): UpstreamCallExtra {
  const mcpReq = ctx.mcpReq;
  const token = mcpReq._meta?.progressToken;
  const { [ROOTS_INPUT_KEY]: _ours, ...theirs } = (mcpReq.inputResponses ?? {}) as Record<string, unknown>;
  const requestState = mcpReq.requestState<string>();
  const capabilities = envelopeOf(ctx)["io.modelcontextprotocol/clientCapabilities"] as
    | Record<string, unknown>
    | undefined;
  return {
    signal: mcpReq.signal,
    // What the client can be asked for goes upstream with the call, where its answers can come back.
    ...(passInputRequests && capabilities ? { clientCapabilities: capabilities } : {}),
    inputRequired: passInputRequests
      ? {
          ...(Object.keys(theirs).length ? { inputResponses: theirs } : {}),
          ...(typeof requestState === "string" ? { requestState } : {}),
        }
      : null,
    ...(token !== undefined
      ? {
          onProgress: (progress) =>
            void mcpReq
              .notify({ method: "notifications/progress", params: { progressToken: token, ...progress } })
              .catch(() => {}),
        }
      : {}),
  };
}

/**
 * A tool input schema as the upstream gave it, in the Standard Schema shape the SDK registers:
 * the JSON Schema is listed as is, and arguments pass through unvalidated (the upstream validates
 * its own input; compiling every upstream schema per request would cost more than the call).
 */
function upstreamSchema(json: Record<string, unknown>) {
  return {
    "~standard": {
      version: 1 as const,
      vendor: "loadout-upstream",
      validate: (value: unknown) => ({ value: value as Record<string, unknown> }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

export type ToolOutcome = ResultOutcome;

/** `server.registerTool`, with each call's outcome reported. */
function trackedRegistrar(
  server: McpServer,
  options: ServerOptions,
  registered: { name: string; config: ToolConfig }[],
): McpServer["registerTool"] {
  const { report, askRoots } = options;
  const register = server.registerTool.bind(server) as (
    name: string,
    config: unknown,
    cb: (...args: unknown[]) => Promise<ToolResult>,
  ) => unknown;
  return ((name: string, config: unknown, cb: (...args: unknown[]) => Promise<ToolResult>) => {
    registered.push({ name, config: config as ToolConfig });
    return register(name, config, async (...args: unknown[]) => {
      if (askRoots)
        return inputRequired({
          inputRequests: { [ROOTS_INPUT_KEY]: inputRequired.listRoots() },
        }) as unknown as ToolResult;
      const result = await cb(...args);
      report?.(outcomeOfToolResult(result));
      return result;
    });
  }) as unknown as McpServer["registerTool"];
}

export function buildMcpServer(ctx: ActionContext, session: McpSession, options: ServerOptions): McpServer {
  const { instructions } = options;
  const needs = options.needs ?? "all";
  const wants = (tool: string) => needs === "all" || (typeof needs === "object" && needs.tool === tool);
  const server = new McpServer(SERVER_INFO, {
    capabilities: { tools: { listChanged: false } },
    ...(instructions ? { instructions } : {}),
  });
  const registered: { name: string; config: ToolConfig }[] = [];
  const registerTool = trackedRegistrar(server, options, registered);
  const listing = options.upstream?.listing;
  // A listing with upstream tools: the built-ins as the SDK would list them, then the upstream
  // entries as cached. (Set after the built-ins register, replacing the SDK's own handler.)
  const answerListing = () => {
    if (!listing) return;
    const tools = [...registered.map(({ name, config }) => listedDefinition(name, config)), ...listing];
    server.server.setRequestHandler("tools/list", () => ({ tools }) as ListToolsResult);
  };
  const upstream = options.upstream;
  for (const tool of upstream?.tools ?? []) {
    registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: upstreamSchema(tool.tool.inputSchema) as unknown as typeof SkillsToolInput,
        annotations: tool.annotations,
      },
      async (args: unknown, extra: unknown) => {
        const result = await upstream?.call(
          tool,
          args as Record<string, unknown> | undefined,
          upstreamCallExtra(extra as ServerContext, options.passInputRequests ?? false),
        );
        return result as ToolResult;
      },
    );
  }
  if (upstream?.only) {
    answerListing();
    return server;
  }

  if (wants("skills"))
    registerTool(
      "skills",
      {
        title: SKILLS_TOOL_ANNOTATIONS.title,
        description:
          'Your skills and personas from Loadout. action "list" gives every item active here with its description; action "get" gives an item\'s SKILL.md (or PERSONA.md), or another of its files with path, 20,000 characters at a time.',
        inputSchema: SkillsToolInput,
        annotations: SKILLS_TOOL_ANNOTATIONS,
      },
      (input) => callSkillsTool(ctx, session, input),
    );

  if (options.searchFetch && (wants("search") || wants("fetch")))
    registerSearchFetch(registerTool, ctx, session, options.origin);
  // The Skills extension: declared in capabilities, serving skills/list, skills/get and skill:// reads.
  if (needs === "all" || needs === "extension")
    new SkillsExtension({ source: registrySkillSource(ctx.db, session) }).attach(server);

  // In plan and goal modes nothing may change the world: skill_edit is not even offered.
  if (session.mode === "agent" && wants("skill_edit")) {
    registerTool(
      "skill_edit",
      {
        title: SKILL_EDIT_TOOL_ANNOTATIONS.title,
        description:
          'Create a skill or persona (name, description, instructions, files), or edit one: its description, instructions, files (a path mapped to null is removed) or state ("active"/"disabled"). The replaced version stays in history. Removing an item stays with the user.',
        inputSchema: SkillEditToolInput,
        annotations: SKILL_EDIT_TOOL_ANNOTATIONS,
      },
      async (input) => {
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
            return text(`Created ${created.kind} "${input.name}" (version ${created.version}).`, {
              name: input.name,
              version: created.version,
              revision: created.revision,
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
          const inScope = isActiveInProject(
            { enabled: true, scope: { mode: row.scopeMode, projects: row.scopeProjects } },
            session.project,
          );
          if (!inScope)
            return failure(`"${input.name}" is not active for this session (it is scoped to other projects).`);
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
          return text(
            `Saved "${input.name}": version ${updated.version}, ${updated.enabled ? "active" : "disabled"}.`,
            {
              name: input.name,
              version: updated.version,
              revision: updated.revision,
              state: updated.enabled ? "active" : "disabled",
            },
          );
        } catch (error) {
          return fromError(error, ctx);
        }
      },
    );
  }
  answerListing();
  return server;
}

/**
 * The `skills` tool: `list` the items active here, or `get` one's document or file, a chunk at a
 * time. Scope is checked again at dispatch. Served by the SDK server and by the fast lane alike.
 */
export async function callSkillsTool(
  ctx: ActionContext,
  session: McpSession,
  input: z.infer<typeof SkillsToolInput>,
  /**
   * The caller only reads the result (the fast lane): a `get` may then return the very object an
   * earlier call got, kept by content address (a skill's version never changes). The SDK's path
   * gets a fresh object, which it is free to change.
   */
  shared = false,
): Promise<ToolResult> {
  try {
    if (input.action === "list") {
      const items = await activeItems(ctx.db, session);
      if (items.length === 0) return text("No skills or personas are active in this session.", { items: [] });
      const lines = items.map(
        (i) =>
          `- ${i.address}${i.kind === "persona" ? " (persona)" : ""} [${i.origin.kind === "team" ? `team ${i.origin.team}` : "personal"}]: ${i.description}`,
      );
      return text(lines.join("\n"), {
        items: items.map((i) => ({
          name: i.address,
          kind: i.kind,
          origin: i.origin.kind === "team" ? `team:${i.origin.team}` : "personal",
          description: i.description,
        })),
      });
    }
    if (!input.name) return failure('Give the item\'s name: skills(action="get", name="…").');
    const resolved = await resolveAddress(ctx.db, session, input.name);
    if (!resolved.ok)
      return failure(
        `${resolved.message}${resolved.candidates.length ? ` Candidates: ${resolved.candidates.join(", ")}.` : ""}`,
      );
    const row = resolved.row ?? (await findSkill(ctx.db, resolved.workspace.id, resolved.name).catch(() => null));
    if (!row) return failure(`There is no skill or persona "${input.name}" in this session.`);
    // Scope is checked again at dispatch: a session that listed the item before it was narrowed
    // must not read it now.
    if (
      !isActiveInProject(
        { enabled: row.enabled, scope: { mode: row.scopeMode, projects: row.scopeProjects } },
        session.project,
      )
    ) {
      return failure(
        `"${input.name}" is not active for this session (it is switched off, or scoped to other projects).`,
      );
    }
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
    const body = new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes);
    const start = Math.min(input.start ?? 0, body.length);
    const chunk = body.slice(start, start + GET_CHUNK);
    const next = start + chunk.length < body.length ? start + chunk.length : null;
    const others = manifest?.files.filter((f) => f.path !== path).map((f) => f.path) ?? [];
    const note = [
      next !== null
        ? `\n\n[${body.length - next} more characters: call skills(action="get", name="${input.name}"${input.path ? `, path="${input.path}"` : ""}, start=${next})]`
        : "",
      path === docNameFor(row.kind) && others.length
        ? `\n\n[Files of this ${row.kind}: ${others.join(", ")}. Read one with path.]`
        : "",
    ].join("");
    const result = text(`${chunk}${note}`, {
      name: input.name,
      path,
      start,
      next_start: next,
      total_chars: body.length,
      digest: file.digest,
      files: manifest?.files.map((f) => ({ path: f.path, size: f.size })) ?? [],
    });
    // Kept for shared callers only: the SDK's path may change what it gets.
    if (shared) session.caches?.content.set(memoKey, result, 2 * (chunk.length + note.length) + 1024);
    return result;
  } catch (error) {
    return fromError(error, ctx);
  }
}

interface ToolConfig {
  title?: string;
  description?: string;
  inputSchema?: { "~standard": { jsonSchema: { input(options: { target: string }): Record<string, unknown> } } };
  annotations?: Record<string, unknown>;
}

/** A registered tool's entry in tools/list, as the SDK builds it (same JSON Schema target). */
function listedDefinition(name: string, config: ToolConfig) {
  return {
    name,
    ...(config.title !== undefined ? { title: config.title } : {}),
    ...(config.description !== undefined ? { description: config.description } : {}),
    inputSchema: config.inputSchema
      ? config.inputSchema["~standard"].jsonSchema.input({ target: "draft-2020-12" })
      : { type: "object", properties: {} },
    ...(config.annotations !== undefined ? { annotations: config.annotations } : {}),
  };
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

function registerSearchFetch(
  registerTool: McpServer["registerTool"],
  ctx: ActionContext,
  session: McpSession,
  origin: string,
) {
  const link = (address: string) => {
    const slash = address.indexOf("/");
    return slash > 0
      ? `${origin}/skills/edit/?name=${encodeURIComponent(address.slice(slash + 1))}&ws=${encodeURIComponent(address.slice(0, slash))}`
      : `${origin}/skills/edit/?name=${encodeURIComponent(address)}&ws=me`;
  };
  registerTool(
    "search",
    {
      title: SEARCH_TOOL_ANNOTATIONS.title,
      description:
        "Search your active skills and personas by words in their names and descriptions. Returns ids to pass to fetch.",
      inputSchema: SearchToolInput,
      annotations: SEARCH_TOOL_ANNOTATIONS,
    },
    async ({ query }) => {
      const results = rankItems(await activeItems(ctx.db, session), query).map((i) => ({
        id: i.address,
        title: `${i.address}: ${i.description}`.slice(0, 200),
        url: link(i.address),
      }));
      return text(JSON.stringify({ results }));
    },
  );
  registerTool(
    "fetch",
    {
      title: FETCH_TOOL_ANNOTATIONS.title,
      description: "Fetch a skill or persona by the id search gave: its whole SKILL.md or PERSONA.md.",
      inputSchema: FetchToolInput,
      annotations: FETCH_TOOL_ANNOTATIONS,
    },
    async ({ id }) => {
      const resolved = await resolveAddress(ctx.db, session, id);
      if (!resolved.ok) return failure(resolved.message);
      const row = await findSkill(ctx.db, resolved.workspace.id, resolved.name).catch(() => null);
      if (
        !row ||
        !isActiveInProject(
          { enabled: row.enabled, scope: { mode: row.scopeMode, projects: row.scopeProjects } },
          session.project,
        )
      ) {
        return failure(`"${id}" is not active for this session.`);
      }
      const manifest = await versionManifest(ctx.db, row.workspaceId, row.id, row.version, session.caches?.content);
      const doc = manifest?.files.find((f) => f.path === docNameFor(row.kind));
      const body = doc
        ? new TextDecoder("utf-8", { ignoreBOM: true }).decode(
            await readBlob(ctx.db, row.workspaceId, doc.digest, session.caches?.content),
          )
        : "";
      return text(
        JSON.stringify({
          id,
          title: id,
          text: body,
          url: link(id),
          metadata: {
            kind: row.kind,
            version: row.version,
            files: manifest?.files.map((f) => f.path) ?? [],
            untrusted: true,
          },
        }),
      );
    },
  );
}

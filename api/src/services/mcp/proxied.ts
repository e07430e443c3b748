import { type Database, mcpServers, mcpServerTools } from "@loadout/db";
import type { CallToolResult, DirectTool, RequestOptions, UpstreamTarget } from "@loadout/workers";
import { needsInput, UpstreamFailed, UpstreamRpcError, UpstreamUnavailable } from "@loadout/workers";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { SecretBoxError } from "../../auth/secret-box";
import { inactiveBecause, isRowActive } from "../../domain/activation";
import { type ToolView, toolViewMeta } from "../../domain/apps/ui";
import { nameAsCalled } from "../../domain/servers/called-name";
import { exposedUri, withExposedUris } from "../../domain/servers/items";
import { boundResult, planAllows, planDescription } from "../../domain/servers/tools";
import { textProblem } from "../../domain/text";
import { AppError } from "../../errors";
import type { Logger } from "../../logger";
import { prepared } from "../prepared";
import { catalogStamp } from "../servers/catalog-version";
import { type CredentialActor, type CredentialRefusal, isRefusal, withCredentials } from "../servers/credentials";
import { lightToolColumns } from "../servers/definitions";
import { serverItems } from "../servers/items";
import {
  markFailed,
  refreshTools,
  type ServerDeps,
  type ServerRow,
  type ServerToolRow,
  safeMessage,
} from "../servers/upstreams";
import type { McpSession } from "./catalog";
import { relayedItemRefusal, relayWithItems } from "./relayed-items";

/** Whether this process said it has no upstream proxy (see proxiedCatalog). */
let toldNoProxy = false;

/** Active servers a session serves at most; the rest are skipped and logged, not queued. */
export const MAX_SERVERS_PER_SESSION = 16;

/** One upstream tool as this session may see it. */
export interface ProxiedTool {
  server: ServerRow;
  tool: ServerToolRow;
  /** The name the client sees: `<slug>_<tool>` at /mcp, the upstream's own on a single-server URL. */
  name: string;
  title: string;
  description: string;
  annotations: {
    title: string;
    readOnlyHint: boolean;
    destructiveHint: boolean;
    idempotentHint: boolean;
    openWorldHint: boolean;
  };
  /** At /mcp, what an upstream URI in its results becomes (see withExposedUris); absent on a single-server URL. */
  exposeUri?: (uri: string) => string;
  /** The entry `tools/list` answers with, built once with the cached listing. */
  definition: {
    name: string;
    title: string;
    description: string;
    inputSchema: Record<string, unknown>;
    outputSchema?: Record<string, unknown>;
    annotations: ProxiedTool["annotations"];
  };
  /**
   * The MCP Apps view the upstream links it to (at /mcp under the server's prefix, see exposedUri),
   * and the entry listed to clients that negotiated Apps: `definition` with the view's `_meta`.
   */
  view?: ToolView;
  appDefinition?: ProxiedTool["definition"] & { _meta: Record<string, unknown> };
}

/** Restricts a session to one server, whose tools keep their own names (`/mcp/s/{ws}/{slug}`). */
export interface SingleServer {
  workspaceId: string;
  slug: string;
}

const active = (server: ServerRow, project: string | null) => isRowActive(server, project);

/**
 * The annotations clients see: the upstream's where it gave them, and otherwise the cautious
 * values the spec assumes for an unknown tool (it may write, destroy and reach the world).
 */
function annotationsOf(tool: ServerToolRow): ProxiedTool["annotations"] {
  const given = tool.annotations;
  return {
    title: tool.title ?? tool.name,
    readOnlyHint: flag(given, "readOnlyHint", false),
    destructiveHint: flag(given, "destructiveHint", true),
    idempotentHint: flag(given, "idempotentHint", false),
    openWorldHint: flag(given, "openWorldHint", true),
  };
}

const flag = (given: Record<string, unknown>, key: string, fallback: boolean): boolean =>
  typeof given[key] === "boolean" ? (given[key] as boolean) : fallback;

/** Why a tool may not be served to this session now, or null: the checks of the catalog and of dispatch. */
export function withheldBecause(server: ServerRow, tool: ServerToolRow, session: McpSession): string | null {
  const serverInactive = inactiveBecause(server, session.project);
  if (serverInactive) return `not active for this session: its server ${server.slug} ${serverInactive}`;
  if (!tool.enabled)
    return `not active for this session: it was switched off on server ${server.slug}'s page in the Loadout console (Tools, Enabled)`;
  if (tool.approvedHash === null) return "not approved yet: review it in the Loadout console";
  if (tool.approvedHash !== tool.hash)
    return "its definition changed since it was approved: review the change in the Loadout console";
  if (session.mode !== "agent" && tool.planSafeActions.length === 0) return `not allowed in ${session.mode} mode`;
  return null;
}

export function present(server: ServerRow, tool: ServerToolRow, session: McpSession, single: boolean): ProxiedTool {
  const description =
    session.mode === "agent" ? tool.description : planDescription(tool.description, tool.planSafeActions);
  const annotations = annotationsOf(tool);
  const name = single ? tool.name : tool.exposedName;
  const workspace = session.workspaces.find((w) => w.id === server.workspaceId);
  const team = workspace?.kind === "team" ? workspace.slug : null;
  const definition = {
    name,
    title: annotations.title,
    description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations,
  };
  const view = tool.ui
    ? { ...tool.ui, resourceUri: single ? tool.ui.resourceUri : exposedUri(tool.ui.resourceUri, server.slug, team) }
    : undefined;
  return {
    server,
    tool,
    name,
    ...(single ? {} : { exposeUri: (uri: string) => exposedUri(uri, server.slug, team) }),
    title: annotations.title,
    description,
    annotations,
    // The output schema is listed, not registered: the SDK would refuse a result without
    // structured content (or one Loadout had to cut), and the upstream validates its own output.
    definition,
    ...(view ? { view, appDefinition: { ...definition, _meta: toolViewMeta(view) } } : {}),
  };
}

/**
 * A found tool as `present` makes it, made once per found pair (the hot cache hands out the same
 * pair while it holds), mode and URL kind: a warm call reuses it rather than building it again.
 */
const presented = new WeakMap<FoundTool, Map<string, ProxiedTool>>();
export function presentFound(found: FoundTool, session: McpSession, single: boolean): ProxiedTool {
  let byShape = presented.get(found);
  if (!byShape) {
    byShape = new Map();
    presented.set(found, byShape);
  }
  const shape = single ? `${session.mode} single` : session.mode;
  let tool = byShape.get(shape);
  if (!tool) {
    tool = present(found.server, found.tool, session, single);
    byShape.set(shape, tool);
  }
  return tool;
}

/**
 * The upstream tools of a session's catalog: servers enabled and in scope for its project (at
 * most 16), each tool enabled, approved with its pin unchanged, and in plan and goal modes only
 * those with plan-safe actions. A server never listed before is connected to now (connect on first
 * use) and its list stored, so the next session reads Postgres alone; a failed server is skipped.
 */
export async function proxiedCatalog(
  db: Database,
  session: McpSession,
  deps: ServerDeps,
  logger: Logger,
  now: Date,
  single?: SingleServer,
  /** Runs work after the response: here, refreshing lists older than TOOLS_STALE_AFTER_MS. */
  defer?: (work: () => Promise<unknown>) => void,
): Promise<ProxiedTool[]> {
  const ids = single ? [single.workspaceId] : session.workspaces.map((w) => w.id);
  if (ids.length === 0) return [];
  // A host without the upstream proxy lists no upstream tool, since it could call none (a Worker
  // deployed without its proxy beside a Node host on the same database, say). The operator hears it once.
  if (!deps.pool) {
    if (!toldNoProxy)
      logger.log("warn", "this host runs no upstream proxy: remote servers' tools are neither listed nor called");
    toldNoProxy = true;
    return [];
  }
  // A listing is the same for every session with these workspaces, project and mode until one of
  // the workspaces' catalogs changes: one small read tells whether the cached one still holds.
  // While Postgres's change feed is live, the generations heard of stand in for that read.
  const live = deps.hot.live;
  const stamp = live ? `live:${live.workspaceStamp(ids)}` : await catalogStamp(db, ids);
  const key = JSON.stringify([[...ids].sort(), session.project, session.mode, single?.slug ?? null]);
  const cached = deps.catalogs.get(key, stamp);
  if (cached) {
    refreshStale(
      db,
      deps,
      now,
      cached.map((t) => t.server),
      defer,
    );
    return cached;
  }
  const candidates = (
    await db
      .select()
      .from(mcpServers)
      .where(
        and(
          inArray(mcpServers.workspaceId, ids),
          eq(mcpServers.enabled, true),
          ...(single ? [eq(mcpServers.slug, single.slug)] : []),
        ),
      )
      .orderBy(asc(mcpServers.createdAt), asc(mcpServers.slug))
  ).filter((s) => active(s, session.project));
  const servers = candidates.slice(0, MAX_SERVERS_PER_SESSION);
  if (candidates.length > servers.length)
    logger.log("warn", "servers over the per-session cap were skipped", {
      userId: session.principal.userId,
      skipped: candidates.slice(MAX_SERVERS_PER_SESSION).map((s) => s.id),
    });
  const firstUse = servers.filter((s) => s.toolsFetchedAt === null && s.status !== "failed");
  if (firstUse.length)
    await Promise.all(firstUse.map((s) => refreshTools(db, s, deps, now, { actor: actorFor(session, s, now) })));
  const serving = servers.filter((s) => s.status !== "failed" || firstUse.includes(s));
  if (serving.length === 0) return [];
  refreshStale(db, deps, now, serving, defer);
  const light = await db
    .select(lightToolColumns)
    .from(mcpServerTools)
    .where(
      and(
        inArray(
          mcpServerTools.serverId,
          serving.map((s) => s.id),
        ),
        inArray(mcpServerTools.workspaceId, ids),
        eq(mcpServerTools.enabled, true),
      ),
    )
    .orderBy(asc(mcpServerTools.serverId), asc(mcpServerTools.position));
  const tools = await deps.definitions.complete(db, light);
  const byServer = new Map<string, ServerToolRow[]>();
  for (const tool of tools) byServer.set(tool.serverId, [...(byServer.get(tool.serverId) ?? []), tool]);
  const seen = new Set<string>();
  const result: ProxiedTool[] = [];
  for (const server of serving) {
    for (const tool of byServer.get(server.id) ?? []) {
      if (withheldBecause(server, tool, session) !== null) continue;
      const entry = present(server, tool, session, Boolean(single));
      // A name already taken (a team's server with a personal one's slug) keeps its first holder.
      if (seen.has(entry.name)) continue;
      seen.add(entry.name);
      result.push(entry);
    }
  }
  deps.catalogs.set(key, stamp, result);
  return result;
}

/**
 * How old a cached tool list may be before a listing refreshes it in the background. An upstream
 * that changes its tools without announcing it is noticed within this time, and the change is
 * then withheld until reviewed.
 */
export const TOOLS_STALE_AFTER_MS = 60 * 60_000;

/** When this process last tried to refresh each server's list in the background. */
const refreshTried = new Map<string, number>();

/**
 * Refreshes, after the response, the lists of these servers that are older than the limit. One
 * instance claims each refresh (a conditional update of the fetch time), so a busy server is not
 * asked by every session. A failure is logged and leaves the status alone: the list in hand stays
 * good until a session fails to connect for a call.
 */
function refreshStale(
  db: Database,
  deps: ServerDeps,
  now: Date,
  servers: ServerRow[],
  defer: ((work: () => Promise<unknown>) => void) | undefined,
) {
  if (!defer || !deps.pool) return;
  for (const server of servers) {
    const fetchedAt = server.toolsFetchedAt;
    if (!fetchedAt || now.getTime() - fetchedAt.getTime() < TOOLS_STALE_AFTER_MS) continue;
    // Tried here lately (a cached listing keeps the old time until the refresh lands): not again.
    const tried = refreshTried.get(server.id);
    if (tried !== undefined && now.getTime() - tried < TOOLS_STALE_AFTER_MS) continue;
    refreshTried.set(server.id, now.getTime());
    if (refreshTried.size > 10_000) refreshTried.clear();
    defer(async () => {
      const claimed = await db
        .update(mcpServers)
        .set({ toolsFetchedAt: now })
        .where(
          and(
            eq(mcpServers.id, server.id),
            eq(mcpServers.generation, server.generation),
            eq(mcpServers.toolsFetchedAt, fetchedAt),
          ),
        )
        .returning({ id: mcpServers.id });
      if (claimed.length === 0) return;
      await refreshTools(db, server, deps, now, { markFailures: false });
    });
  }
}

/** The workspaces a lookup of a call's tool searches (and whose generations its answer holds under). */
export function lookupWorkspaces(session: Pick<McpSession, "workspaces">, single?: SingleServer | null): string[] {
  return single ? [single.workspaceId] : session.workspaces.map((w) => w.id);
}

/** An upstream tool with its server, as one lookup found them. */
export interface FoundTool {
  server: ServerRow;
  tool: ServerToolRow;
}

/**
 * The tool a call names, looked up (never parsed from the name), with its server: in hand when the
 * hot cache holds it, else read.
 */
export function findProxiedTool(
  db: Database,
  deps: ServerDeps,
  session: Pick<McpSession, "workspaces">,
  name: string,
  single?: SingleServer,
): FoundTool | null | Promise<FoundTool | null> {
  const ids = lookupWorkspaces(session, single);
  // No tool is named with a control character (names are `^[a-zA-Z0-9_-]+$`), and Postgres
  // would refuse a NUL in the query: such a name is simply not found.
  if (ids.length === 0 || textProblem(name) !== null) return null;
  const key = `proxied_tool\u0000${ids.join(",")}\u0000${single?.slug ?? ""}\u0000${name}`;
  return deps.hot.byWorkspaces(key, ids, () => readProxiedTool(db, deps, ids, name, single));
}

async function readProxiedTool(
  db: Database,
  deps: ServerDeps,
  ids: string[],
  name: string,
  single: SingleServer | undefined,
): Promise<FoundTool | null> {
  // Prepared: this runs on every proxied call, and building the query costs more than running it.
  const rows = single
    ? await prepared(db, "proxied_tool_single", (d) =>
        d
          .select({ server: mcpServers, tool: lightToolColumns })
          .from(mcpServerTools)
          .innerJoin(mcpServers, eq(mcpServers.id, mcpServerTools.serverId))
          .where(
            and(
              eq(mcpServerTools.workspaceId, sql.placeholder("workspace")),
              eq(mcpServers.slug, sql.placeholder("slug")),
              eq(mcpServerTools.name, sql.placeholder("name")),
            ),
          )
          .limit(1)
          .prepare("proxied_tool_single"),
      ).execute({ workspace: single.workspaceId, slug: single.slug, name })
    : await prepared(db, "proxied_tool_by_name", (d) =>
        d
          .select({ server: mcpServers, tool: lightToolColumns })
          .from(mcpServerTools)
          .innerJoin(mcpServers, eq(mcpServers.id, mcpServerTools.serverId))
          .where(
            and(
              sql`${mcpServerTools.workspaceId} = any(${sql.placeholder("workspaces")}::text[])`,
              eq(mcpServerTools.exposedName, sql.placeholder("name")),
            ),
          )
          // The same holder the catalog gives a name shared by two workspaces: the earliest server.
          .orderBy(asc(mcpServers.createdAt), asc(mcpServers.slug))
          .limit(1)
          .prepare("proxied_tool_by_name"),
      ).execute({ workspaces: textArrayLiteral(ids), name });
  const found = rows[0];
  if (!found) return null;
  const [tool] = await deps.definitions.complete(db, [found.tool]);
  return tool ? { server: found.server, tool } : null;
}

/**
 * A Postgres text[] literal: postgres.js (without type fetching) and PGlite both take an array
 * parameter reliably in this form.
 */
function textArrayLiteral(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/["\\]/g, (c) => `\\${c}`)}"`).join(",")}}`;
}

/**
 * The upstream's result without the protocol's reserved `_meta` keys (`io.modelcontextprotocol/…`,
 * such as its serverInfo): those describe the upstream hop, and the client's hop is Loadout's.
 */
function withoutEnvelope(result: CallToolResult): CallToolResult {
  const meta = result._meta as Record<string, unknown> | undefined;
  if (!meta) return result;
  const kept = Object.fromEntries(Object.entries(meta).filter(([key]) => !key.startsWith("io.modelcontextprotocol/")));
  const { _meta: _, ...rest } = result;
  return (Object.keys(kept).length ? { ...rest, _meta: kept } : rest) as CallToolResult;
}

/** What a proxied call carries besides its arguments: the time, and the client's cancellation and progress. */
export interface ProxiedCallOptions {
  now: Date;
  /** The origin the request reached, for a console link when no public URL is configured. */
  origin?: string;
  signal?: AbortSignal;
  /** Calls the listener when the client goes away (see CallOptions.whenGone). */
  whenGone?: (listener: () => void) => void;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** Log messages the upstream sends during the call, for a client that can hear them. */
  onNotification?: RequestOptions["onNotification"];
  logLevel?: string;
  /**
   * An upstream's JSON-RPC error is thrown (UpstreamRpcError) for the transport to relay as the
   * same error (a single-server URL, which is faithful); otherwise it becomes an error result
   * naming the server, beside the other tools of `/mcp`.
   */
  relayErrors?: boolean;
  /** The client's capabilities, sent upstream (see CallOptions.clientCapabilities). */
  clientCapabilities?: Record<string, unknown>;
  inputRequired?: { inputResponses?: Record<string, unknown>; requestState?: string } | null;
}

const refusal = (text: string): CallToolResult => ({ content: [{ type: "text", text }], isError: true });

/** The 2026-07-28 error for a request whose client lacks a capability the server needs. */
const MISSING_CAPABILITY = -32021;

/**
 * An upstream's JSON-RPC error as `/mcp` reports it (see ProxiedCallOptions.relayErrors): an error
 * result naming the server; a missing client capability (nothing ran) as input this client cannot
 * give through Loadout.
 */
function relayed(server: ServerRow, tool: string, options: ProxiedCallOptions) {
  return (error: unknown): CallToolResult => {
    if (options.relayErrors || !(error instanceof UpstreamRpcError)) throw error;
    if (error.code === MISSING_CAPABILITY) return needsInput({ name: server.slug }, tool);
    return refusal(`${server.slug} answered with an error (${error.code}): ${error.message.slice(0, 300)}`);
  };
}

/**
 * Dispatches a call to an upstream tool. Everything is checked again now, whatever the session
 * listed before: the server is enabled and in scope, the tool enabled and approved with its pin
 * unchanged, and in plan and goal modes the action is plan-safe. The pool checks the plan again.
 */
export async function callProxiedTool(
  db: Database,
  session: McpSession,
  deps: ServerDeps,
  found: ExposedTool,
  name: string,
  args: Record<string, unknown> | undefined,
  options: ProxiedCallOptions,
): Promise<CallToolResult> {
  return dispatchRefusal(found, name, session, args) ?? forward(db, session, deps, found, name, args, options);
}

/** An upstream's answer as the client gets it: within bounds, its errors naming the tool as called. */
function answerOf(result: CallToolResult, found: ExposedTool, name: string): CallToolResult {
  const answer = nameAsCalled(
    boundResult(withoutEnvelope(result) as Parameters<typeof boundResult>[0]) as CallToolResult,
    found.tool.name,
    name,
  );
  return found.exposeUri ? withExposedUris(answer, found.exposeUri) : answer;
}

/** A found tool, with what its results' URIs become where it is served namespaced. */
type ExposedTool = FoundTool & Pick<ProxiedTool, "exposeUri">;

/** Why dispatch refuses this call now (see callProxiedTool), as the agent reads it; null to send it. */
function dispatchRefusal(
  { server, tool }: FoundTool,
  name: string,
  session: McpSession,
  args: Record<string, unknown> | undefined,
): CallToolResult | null {
  const withheld = withheldBecause(server, tool, session);
  if (withheld) return refusal(`Tool ${name} is ${withheld}.`);
  if (session.mode !== "agent" && !planAllows(tool.planSafeActions, args))
    return refusal(
      `Tool ${name} may only run ${tool.planSafeActions.map((a) => `action "${a}"`).join(", ")} in ${session.mode} mode. Switch to agent mode to make changes.`,
    );
  return null;
}

/**
 * callProxiedTool with the pool's prepared call a session memo holds (see session-memo.ts): the same
 * checks at dispatch, then the prepared call where it still holds, else the pool as usual. One promise deep, where the
 * usual path nests four: on a warm call each level cost the answer's way back a few microseconds.
 */
export function callPrepared(
  db: Database,
  session: McpSession,
  deps: ServerDeps,
  found: ExposedTool,
  direct: DirectTool | null,
  name: string,
  args: Record<string, unknown> | undefined,
  options: ProxiedCallOptions,
): Promise<CallToolResult> {
  const refused = dispatchRefusal(found, name, session, args);
  if (refused) return Promise.resolve(refused);
  // The prepared call carries only cancellation: a call that streams (progress, log messages) or
  // carries the client's capabilities or input rounds goes through the pool.
  const streams =
    options.onProgress ||
    options.onNotification ||
    options.logLevel ||
    options.clientCapabilities ||
    options.inputRequired;
  if (!direct?.current || found.server.status === "failed" || streams)
    return forward(db, session, deps, found, name, args, options);
  return direct
    .call(args, {
      planSafeActions: session.mode === "agent" ? null : found.tool.planSafeActions,
      ...(options.signal ? { signal: options.signal } : {}),
      ...(options.whenGone ? { whenGone: options.whenGone } : {}),
    })
    .then((result) => answerOf(result, found, name), relayed(found.server, found.tool.name, options));
}

/** Who calls, for the credentials a call to an OAuth server carries (see servers/credentials.ts). */
export function actorFor(
  session: Pick<McpSession, "principal" | "workspaces">,
  server: Pick<ServerRow, "workspaceId">,
  now: Date,
): CredentialActor {
  const workspace = session.workspaces.find((w) => w.id === server.workspaceId);
  return {
    userId: session.principal.userId,
    workspaceParam: !workspace || workspace.kind === "personal" ? "me" : workspace.slug,
    now,
  };
}

/**
 * Sends `use` to the server with this session's credentials (its headers, or the caller's OAuth
 * connection, refreshed as needed), or says why it cannot be used now: no pool here, its last
 * connection failed, a secret no key opens (then marked failed), or the caller has no usable
 * sign-in. The target is handed to `onTarget` for scrubbing error messages.
 */
async function withUsableTarget<T>(
  db: Database,
  session: Pick<McpSession, "principal" | "workspaces">,
  deps: ServerDeps,
  server: ServerRow,
  now: Date,
  use: (pool: NonNullable<ServerDeps["pool"]>, target: UpstreamTarget) => Promise<T>,
): Promise<T | CredentialRefusal> {
  const pool = deps.pool;
  if (!pool)
    return {
      refusal:
        "This host runs no upstream proxy, so it cannot reach remote MCP servers; its tools are not listed here either.",
    };
  if (server.status === "failed")
    return {
      refusal: `${server.slug} failed its last connection (${server.lastError ?? "no answer"}). Fix it in the Loadout console and press Test.`,
    };
  try {
    return await withCredentials(db, deps, server, actorFor(session, server, now), (target) => use(pool, target));
  } catch (error) {
    if (!(error instanceof SecretBoxError)) throw error;
    await markFailed(db, deps.hot, server, error.message, now);
    return { refusal: `${server.slug} cannot be used: ${error.message}` };
  }
}

/** The key under which Loadout asks a client to open an OAuth server's sign-in page (an MRTR input request). */
export const SIGN_IN_INPUT_KEY = "loadout_sign_in";

/**
 * A caller who must sign in to an OAuth server (Connect) and whose client can open a URL for it
 * (a 2026-07-28 client that declared URL-mode elicitation, or a 2025 one whose call is asked on
 * its stream): asked to, as an `input_required` result whose URL is the server's console page,
 * rather than told in a tool error. The retry answers it; a retry that answered and is still
 * not connected gets the refusal, so nobody is asked twice for one call.
 */
function signInAsked(refused: CredentialRefusal, options: ProxiedCallOptions): CallToolResult | null {
  const url = refused.connectUrl && options.origin ? new URL(refused.connectUrl, options.origin).href : null;
  const elicitation = options.clientCapabilities?.elicitation as { url?: unknown } | undefined;
  if (!url || !options.inputRequired || !elicitation?.url) return null;
  if (options.inputRequired.inputResponses?.[SIGN_IN_INPUT_KEY] !== undefined) return null;
  return {
    resultType: "input_required",
    inputRequests: {
      [SIGN_IN_INPUT_KEY]: {
        method: "elicitation/create",
        params: { mode: "url", message: `${refused.refusal} Open the page to sign in, then go on.`, url },
      },
    },
  } as unknown as CallToolResult;
}

/** A retry's rounds as the upstream gets them: without the answer to Loadout's own sign-in question. */
function upstreamRounds(rounds: ProxiedCallOptions["inputRequired"]): ProxiedCallOptions["inputRequired"] {
  if (!rounds?.inputResponses || !(SIGN_IN_INPUT_KEY in rounds.inputResponses)) return rounds ?? null;
  const { [SIGN_IN_INPUT_KEY]: _ours, ...theirs } = rounds.inputResponses;
  const { inputResponses: _all, ...rest } = rounds;
  return Object.keys(theirs).length ? { ...rest, inputResponses: theirs } : rest;
}

/**
 * The proxy layer: opens the secrets and sends the call once through the pool, which applies its
 * own plan check. A server that cannot be reached is marked failed, so later sessions do not wait.
 */
export async function forward(
  db: Database,
  session: Pick<McpSession, "mode" | "principal" | "workspaces">,
  deps: ServerDeps,
  found: ExposedTool,
  name: string,
  args: Record<string, unknown> | undefined,
  options: ProxiedCallOptions,
): Promise<CallToolResult> {
  const { server, tool } = found;
  let used: UpstreamTarget | undefined;
  try {
    const result = await withUsableTarget(db, session, deps, server, options.now, (pool, target) => {
      used = target;
      return pool.callTool(target, tool.name, args, {
        planSafeActions: session.mode === "agent" ? null : tool.planSafeActions,
        ...(options.signal ? { signal: options.signal } : {}),
        ...(options.whenGone ? { whenGone: options.whenGone } : {}),
        ...(options.onProgress ? { onProgress: options.onProgress } : {}),
        ...(options.onNotification ? { onNotification: options.onNotification } : {}),
        ...(options.logLevel ? { logLevel: options.logLevel } : {}),
        ...(options.clientCapabilities ? { clientCapabilities: options.clientCapabilities } : {}),
        inputRequired: upstreamRounds(options.inputRequired),
      });
    });
    if (isRefusal(result)) return signInAsked(result, options) ?? refusal(`${result.refusal} The call was not sent.`);
    return answerOf(result, found, name);
  } catch (error) {
    if (!(error instanceof UpstreamUnavailable)) return relayed(server, tool.name, options)(error);
    const message = used ? safeMessage(error, used) : error.message.slice(0, 500);
    await markFailed(db, deps.hot, server, message, options.now);
    return refusal(`${server.slug} could not be reached (${message}); the call was not sent.`);
  }
}

/**
 * The server a single-server URL names (`/mcp/s/{ws}/{slug}`), looked up in its workspace: in hand
 * while the hot cache holds it, else read. Null when there is none (another tenant's is none).
 */
export function findSingleServer(
  db: Database,
  deps: ServerDeps,
  single: SingleServer,
): ServerRow | null | Promise<ServerRow | null> {
  const key = `single_server\u0000${single.workspaceId}\u0000${single.slug}`;
  return deps.hot.byWorkspaces(key, [single.workspaceId], async () => {
    const [row] = await db
      .select()
      .from(mcpServers)
      .where(and(eq(mcpServers.workspaceId, single.workspaceId), eq(mcpServers.slug, single.slug)))
      .limit(1);
    return row ?? null;
  });
}

/**
 * Why a request other than a tool call (resources, prompts, completions) may not reach this server
 * from this session now, or null: the server is not active for it. Each resource, template and
 * prompt is then governed by its own pin and settings (see relayed-items.ts).
 */
export function relayRefusal(server: ServerRow, session: Pick<McpSession, "project">): string | null {
  const inactive = inactiveBecause(server, session.project);
  return inactive ? `${server.slug} is not active for this session: it ${inactive}` : null;
}

/**
 * What the upstream declared it serves (resources, prompts, completions, logging), for a session
 * that may reach it; nothing when it may not, or cannot be reached (its tools are still listed
 * from the cache).
 */
export async function upstreamCapabilities(
  db: Database,
  session: Pick<McpSession, "project" | "principal" | "workspaces">,
  deps: ServerDeps,
  server: ServerRow,
  now: Date,
): Promise<Record<string, unknown>> {
  if (!deps.pool || server.status === "failed" || relayRefusal(server, session)) return {};
  try {
    // Connected as the caller would be: an OAuth server with the caller's (or the team's) sign-in.
    const capabilities = await withUsableTarget(db, session, deps, server, now, (pool, target) =>
      pool.capabilities(target),
    );
    return isRefusal(capabilities) ? {} : capabilities;
  } catch {
    return {};
  }
}

/**
 * Relays one request other than a tool call to a session's upstream server, after the checks a
 * call gets at dispatch (the server enabled and in scope) and under the pins of its resources,
 * templates and prompts (see relayed-items.ts). The upstream's JSON-RPC error
 * is thrown as it is (UpstreamRpcError), for the transport to relay; Loadout's own refusals and
 * failures as AppErrors.
 */
export async function relayRequest(
  db: Database,
  session: McpSession,
  deps: ServerDeps,
  server: ServerRow,
  method: string,
  params: Record<string, unknown> | undefined,
  options: ProxiedCallOptions & RequestOptions,
): Promise<Record<string, unknown>> {
  const refused = relayRefusal(server, session);
  if (refused) throw new AppError("forbidden", `${refused}.`);
  let used: UpstreamTarget | undefined;
  try {
    return await relayWithItems(db, deps.hot, server, session.mode, method, params, options.now, async () => {
      const result = await withUsableTarget(db, session, deps, server, options.now, (pool, target) => {
        used = target;
        return pool.request(target, method, params, options);
      });
      if (isRefusal(result)) throw new AppError("unavailable", `${result.refusal} Nothing was sent.`);
      return result;
    });
  } catch (error) {
    if (error instanceof UpstreamFailed) throw new AppError("unavailable", error.message);
    if (!(error instanceof UpstreamUnavailable)) throw error;
    const message = used ? safeMessage(error, used) : error.message.slice(0, 500);
    await markFailed(db, deps.hot, server, message, options.now);
    throw new AppError("unavailable", `${server.slug} could not be reached (${message}); nothing was sent.`);
  }
}

/** At most this many resources are watched for one listen stream. */
export const MAX_WATCHED_RESOURCES = 64;

/** The resources of one upstream a listen stream may watch, and how to start watching them. */
export interface ResourceWatches {
  /** The URIs asked for that the session may read, in the order asked, each once. */
  uris: string[];
  /** Subscribes to them upstream for `onUpdated`; returns how to stop (see UpstreamPool.watchResource). */
  start(onUpdated: (params: Record<string, unknown>) => void): () => void;
}

/**
 * Which of `uris` a 2026-07-28 listen stream may watch on a session's upstream server: those a
 * `resources/read` of the session could reach (the server active for it, the resource listed and
 * served, or matching a served template, under its pins and plan rules), and only where the
 * upstream declared resource subscriptions and this host can hold them (the pool is connected by
 * then, so asking what it declared costs nothing more). Starting subscribes
 * upstream; a failure then is logged by `onFailed`, and the stream just hears nothing of that URI.
 */
export async function resourceWatches(
  db: Database,
  session: McpSession,
  deps: ServerDeps,
  server: ServerRow,
  uris: readonly string[],
  now: Date,
  onFailed: (error: unknown) => void,
): Promise<ResourceWatches> {
  const none: ResourceWatches = { uris: [], start: () => () => {} };
  const pool = deps.pool;
  if (!pool?.watchResource || !uris.length || relayRefusal(server, session)) return none;
  const declared = (await upstreamCapabilities(db, session, deps, server, now)).resources as
    | { subscribe?: unknown }
    | undefined;
  if (declared?.subscribe !== true) return none;
  const rows = await serverItems(db, deps.hot, server);
  const allowed = [...new Set(uris)]
    .filter((uri) => relayedItemRefusal(rows, "resources/subscribe", { uri }, session.mode) === null)
    .slice(0, MAX_WATCHED_RESOURCES);
  if (!allowed.length) return none;
  return {
    uris: allowed,
    start(onUpdated) {
      const stops: (() => void)[] = [];
      let stopped = false;
      void withUsableTarget(db, session, deps, server, now, (usable, target) =>
        Promise.all(
          allowed.map(async (uri) => {
            try {
              const stop = await (usable.watchResource as NonNullable<typeof usable.watchResource>)(
                target,
                uri,
                onUpdated,
              );
              if (stopped) stop();
              else stops.push(stop);
            } catch (error) {
              onFailed(error);
            }
          }),
        ),
      ).catch(onFailed);
      return () => {
        stopped = true;
        for (const stop of stops.splice(0)) stop();
      };
    },
  };
}

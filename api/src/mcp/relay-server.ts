import type { CallToolResult, RelatedNotification } from "@loadout/workers";
import { inputRequired, ProtocolError, Server, type ServerContext } from "@modelcontextprotocol/server";
import {
  RESOURCES_DIRECTORY_READ_METHOD,
  SKILLS_EXTENSION_ID,
  SKILLS_GET_METHOD,
  SKILLS_LIST_METHOD,
} from "@modelcontextprotocol/server/ext/skills";
import { z } from "zod";
import { outcomeOfToolResult } from "../domain/activity/outcomes";
import { listedFor, withoutViews } from "../domain/apps/ui";
import type { LogLevel } from "../domain/mcp/log-levels";
import { ROOTS_INPUT_KEY } from "../domain/roots";
import { logGate } from "./log-gate";
import type { LoadoutTool } from "./registry";
import { protocolErrorOf } from "./results";
import {
  envelopeOf,
  logMessagesTo,
  SERVER_INFO,
  type ToolOutcome,
  type UpstreamCallExtra,
  upstreamCallExtra,
} from "./server";

/** The requests besides tool calls that pass through to the upstream, by the capability that offers them. */
const RELAYED: Record<string, string> = {
  "resources/list": "resources",
  "resources/templates/list": "resources",
  "resources/read": "resources",
  "prompts/list": "prompts",
  "prompts/get": "prompts",
  "completion/complete": "completions",
};

const ANY_PARAMS = z.looseObject({});
const DIRECTORY_READ = RESOURCES_DIRECTORY_READ_METHOD;

/** What the relay needs of the endpoint: the session's tools and the two ways to reach the upstream. */
export interface RelayOptions {
  /** What the upstream declared in its handshake; empty when the session may not reach it. */
  upstreamCapabilities: Record<string, unknown>;
  /** The upstream's tool a call names (found and presented), or every tool of a listing, from the registry. */
  tools: LoadoutTool[];
  askRoots: boolean;
  passInputRequests: boolean;
  /** Declare list_changed for its lists: a 2026-07-28 client may listen (see list-changes.ts). */
  listChanged?: boolean;
  /**
   * Declare resource subscriptions: a 2026-07-28 client may name resources in its listen, and hears
   * the upstream's updates of them (the upstream declared them; this host can hold them).
   */
  resourceSubscriptions?: boolean;
  /** The client negotiated MCP Apps: tools keep their views, `ui://` resources are listed (see domain/apps/ui.ts). */
  apps?: boolean;
  /** A 2025 session's level (legacy-levels.ts), read when a request hears its first log message. */
  legacyLevel?: () => Promise<LogLevel | null>;
  report(outcome: ToolOutcome): void;
  /** Hears an unexpected error (logged with the request id; the client is told only that it failed). */
  onInternal(error: unknown): void;
  call(tool: LoadoutTool, args: Record<string, unknown> | undefined, extra: RelayCallExtra): Promise<CallToolResult>;
  relay(method: string, params: Record<string, unknown>, extra: RelayExtra): Promise<Record<string, unknown>>;
}

export interface RelayExtra {
  signal: AbortSignal;
  onNotification(notification: RelatedNotification): void;
  logLevel?: string;
  clientCapabilities?: Record<string, unknown>;
}

export type RelayCallExtra = UpstreamCallExtra & Omit<RelayExtra, "signal">;

/**
 * The server behind a single-server URL (`/mcp/s/{ws}/{slug}`): the upstream as the client would
 * see it directly, minus what Loadout's rules withhold. Its tools are the session's (approved,
 * pinned, in scope, plan-safe in plan mode), called with every check of dispatch; resources,
 * prompts and completions pass through when the upstream offers them and the session may reach it;
 * log messages and progress on a request's stream reach the client; the upstream's JSON-RPC errors
 * stay JSON-RPC errors.
 *
 * A low-level SDK server, not McpServer: McpServer turns every error a tool throws into a tool
 * result, which would hide the upstream's own errors.
 */
export function buildRelayServer(options: RelayOptions): Server {
  const upstream = options.upstreamCapabilities;
  const offered = (capability: string) => upstream[capability] !== undefined && upstream[capability] !== null;
  const listChanged = options.listChanged ?? false;
  const server = new Server(SERVER_INFO, {
    capabilities: {
      tools: { listChanged },
      ...(offered("resources")
        ? { resources: { listChanged, ...(options.resourceSubscriptions ? { subscribe: true } : {}) } }
        : {}),
      ...(offered("prompts") ? { prompts: { listChanged } } : {}),
      ...(offered("completions") ? { completions: {} } : {}),
      ...(offered("logging") ? { logging: {} } : {}),
    },
  });
  const tools = options.tools;
  server.setRequestHandler(
    "tools/list",
    () =>
      ({
        tools: tools.flatMap((t) => (t.proxied ? listedFor(options.apps ?? false, t.proxied) : [])),
      }) as never,
  );
  server.setRequestHandler("tools/call", async (request, ctx) => {
    const tool = tools.find((t) => t.name === request.params.name);
    if (!tool) throw new ProtocolError(-32602, `Tool ${request.params.name} not found`);
    if (options.askRoots)
      return inputRequired({ inputRequests: { [ROOTS_INPUT_KEY]: inputRequired.listRoots() } }) as never;
    let result: CallToolResult;
    const stream = streamed(ctx, options.legacyLevel);
    try {
      result = await options.call(tool, request.params.arguments, {
        ...upstreamCallExtra(ctx, options.passInputRequests),
        ...stream.extra,
      });
    } catch (error) {
      throw protocolErrorOf(error, options.onInternal);
    } finally {
      // Its log messages go before its answer.
      await stream.settled();
    }
    if ((result as { resultType?: unknown }).resultType === "input_required") return result as never;
    options.report(outcomeOfToolResult(result as Parameters<typeof outcomeOfToolResult>[0]));
    return server.projectCallToolResult(result, undefined) as never;
  });
  const relayed = async (method: string, given: Record<string, unknown> | undefined, ctx: ServerContext) => {
    const { _meta: _, ...params } = given ?? {};
    // A retry's input rounds, which the SDK lifts out of the params, go back in for the upstream.
    const { inputResponses, requestState } = ctx.mcpReq;
    const state = requestState<string>();
    if (inputResponses && Object.keys(inputResponses).length) params.inputResponses = inputResponses;
    if (typeof state === "string") params.requestState = state;
    const stream = streamed(ctx, options.legacyLevel);
    try {
      const result = await options.relay(method, params, { signal: ctx.mcpReq.signal, ...stream.extra });
      return (options.apps ? result : withoutViews(method, result)) as never;
    } catch (error) {
      throw protocolErrorOf(error, options.onInternal);
    } finally {
      await stream.settled();
    }
  };
  for (const [method, capability] of Object.entries(RELAYED)) {
    if (!offered(capability)) continue;
    server.setRequestHandler(method as "resources/list", (request, ctx) =>
      relayed(method, request.params as Record<string, unknown> | undefined, ctx),
    );
  }
  // The Skills extension (SEP-2640), declared as the upstream declared it: its methods pass through
  // under the server's skill pins (services/mcp/relayed-items.ts), like its other items.
  const skills = (upstream.extensions as Record<string, unknown> | undefined)?.[SKILLS_EXTENSION_ID];
  if (skills && typeof skills === "object" && offered("resources")) {
    const directoryRead = (skills as { directoryRead?: unknown }).directoryRead === true;
    server.registerCapabilities({
      extensions: { [SKILLS_EXTENSION_ID]: directoryRead ? { directoryRead: true } : {} },
    });
    for (const method of [SKILLS_LIST_METHOD, SKILLS_GET_METHOD, ...(directoryRead ? [DIRECTORY_READ] : [])])
      server.setRequestHandler(method, { params: ANY_PARAMS }, (params, ctx) =>
        relayed(method, params as Record<string, unknown>, ctx),
      );
  }
  // A 2025 session's setLevel is kept by the pipeline before it gets here (its level applied to
  // each request's messages, see streamed); one without Loadout's session id has nowhere to keep it.
  if (offered("logging")) server.setRequestHandler("logging/setLevel", () => ({}) as never);
  return server;
}

/**
 * How a request's stream carries what the upstream sends on it: log messages, at the client's
 * level. `settled` resolves once every message heard has been passed on or dropped.
 */
function streamed(
  ctx: ServerContext,
  legacyLevel: (() => Promise<LogLevel | null>) | undefined,
): { extra: Omit<RelayExtra, "signal">; settled: () => Promise<void> } {
  const meta = envelopeOf(ctx);
  const level = meta["io.modelcontextprotocol/logLevel"];
  // A 2026-07-28 client that names no level gets no messages; a 2025 client gets those at the
  // level its session set (every message when it set none, as a 2025 server sends them until told
  // otherwise), so the upstream is asked for all of them.
  const modern = meta["io.modelcontextprotocol/protocolVersion"] !== undefined;
  const logLevel = typeof level === "string" ? level : modern ? undefined : "debug";
  const send = logMessagesTo(ctx);
  const gate = !modern && legacyLevel ? logGate(legacyLevel, send) : null;
  // What the client can be asked for goes upstream; its input rounds come back in the result.
  const capabilities = meta["io.modelcontextprotocol/clientCapabilities"];
  return {
    extra: {
      ...(logLevel ? { logLevel } : {}),
      ...(modern && capabilities && typeof capabilities === "object"
        ? { clientCapabilities: capabilities as Record<string, unknown> }
        : {}),
      onNotification: gate ? (notification) => gate.notify(notification) : send,
    },
    settled: () => gate?.settled() ?? Promise.resolve(),
  };
}

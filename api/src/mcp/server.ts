import { registerAppResource } from "@modelcontextprotocol/ext-apps/server";
import { inputRequired, type ListToolsResult, McpServer, type ServerContext } from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import { outcomeOfToolResult, type ResultOutcome } from "../domain/activity/outcomes";
import { toolViewMeta, VIEW_MIME_TYPE } from "../domain/apps/ui";
import { ROOTS_INPUT_KEY } from "../domain/roots";
import type { ActionContext } from "../services/context";
import type { McpSession } from "../services/mcp/catalog";
import { type ProxiedTool, SIGN_IN_INPUT_KEY } from "../services/mcp/proxied";
import type { SessionItem } from "../services/mcp/session-items";
import { LOADOUT_VIEWS } from "./apps/views";
import type { LoadoutTool } from "./registry";
import { protocolErrorOf, type ToolResult } from "./results";
import { registrySkillSource } from "./skills-source";
import { attachUpstreamItems, type ItemRelay } from "./upstream-items";

export const SERVER_INFO = { name: "loadout", title: "Loadout", version: "0.1.0" };

/** What the SDK's per-request server serves (see buildMcpServer). */
export interface ServerOptions {
  instructions: string | null;
  /** This server's origin, for the console links in results. */
  origin: string;
  /**
   * The tools this request may call, from the registry: for a tools/call only the one it names, so
   * that a per-request server stays cheap; for a handshake or a listing every one.
   */
  tools: LoadoutTool[];
  /**
   * For a tools/list: the upstream tools' entries, answered after the registered tools' without
   * registering each one (registering 1,000 tools per request costs more than the listing).
   */
  listing?: ProxiedTool["definition"][];
  /** Serve the Skills extension (declared in capabilities: skills/list, skills/get, skill:// reads). */
  extension: boolean;
  /**
   * The client negotiated MCP Apps: tools are listed with their views (`_meta.ui`) and, beside the
   * Skills extension's resources, Loadout's own `ui://loadout/…` views are listed and read.
   */
  apps?: boolean;
  /** Told what became of a tool call, so the activity log need not read the answer again. */
  report?: (outcome: ToolOutcome) => void;
  /**
   * Hears an unexpected error of a handler other than a tool's (the Skills extension's source, an
   * upstream item's read): logged with the request id, while the client is told only that it failed.
   */
  onInternal?: (error: unknown) => void;
  /** Answer a tool call with a request for the client's roots (its project) instead. */
  askRoots?: boolean;
  /** The client is on the 2026-07-28 revision and can answer input requests: the upstream's pass through. */
  passInputRequests?: boolean;
  /** Also gives a call up when this says (a 2025 client's `notifications/cancelled`); called once per call. */
  giveUpWhen?: (signal: AbortSignal) => AbortSignal;
  /** The upstream resources, templates and prompts this session sees at /mcp, and how to reach them. */
  upstreamItems?: { items: SessionItem[]; relay: ItemRelay };
  /** Declare list_changed for its lists: a 2026-07-28 client may listen (see list-changes.ts). */
  listChanged?: boolean;
  /** Declare resource subscriptions (with listChanged): a listen may name upstream resources (see resourceWatches). */
  resourceSubscriptions?: boolean;
}

export interface UpstreamCallExtra {
  signal: AbortSignal;
  clientCapabilities?: Record<string, unknown>;
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The level a 2026-07-28 client asked its log messages at, and where they go (the call's stream). */
  logLevel?: string;
  onNotification?: (notification: { method: string; params?: Record<string, unknown> }) => void;
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
  // Loadout's own questions' answers stay here; the upstream gets the answers to its own.
  const {
    [ROOTS_INPUT_KEY]: _roots,
    [SIGN_IN_INPUT_KEY]: signedIn,
    ...theirs
  } = (mcpReq.inputResponses ?? {}) as Record<string, unknown>;
  const requestState = mcpReq.requestState<string>();
  const envelope = envelopeOf(ctx);
  const capabilities = envelope["io.modelcontextprotocol/clientCapabilities"] as Record<string, unknown> | undefined;
  // A 2026-07-28 client that names a level hears the upstream's log messages on the call's stream
  // (none otherwise: such a request never takes the pipeline's own lane, so both agree).
  const level = envelope["io.modelcontextprotocol/logLevel"];
  return {
    ...(typeof level === "string"
      ? {
          logLevel: level,
          onNotification: logMessagesTo(ctx),
        }
      : {}),
    signal: mcpReq.signal,
    // What the client can be asked for goes upstream with the call, where its answers can come back.
    ...(passInputRequests && capabilities ? { clientCapabilities: capabilities } : {}),
    inputRequired: passInputRequests
      ? {
          ...(Object.keys(theirs).length || signedIn !== undefined
            ? { inputResponses: signedIn === undefined ? theirs : { ...theirs, [SIGN_IN_INPUT_KEY]: signedIn } }
            : {}),
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

/** Passes an upstream's log messages during a call on to the client, on the call's stream. */
export const logMessagesTo =
  (ctx: ServerContext) =>
  async (notification: { method: string; params?: Record<string, unknown> }): Promise<void> => {
    if (notification.method !== "notifications/message") return;
    // Resolves once the stream has it; a stream gone meanwhile is no failure of the call.
    await ctx.mcpReq.notify({ method: notification.method, params: notification.params ?? {} }).catch(() => {});
  };

export type ToolOutcome = ResultOutcome;

/**
 * The SDK's server for one request: the registry's tools (see registry.ts), each call's outcome
 * reported; the Skills extension where asked; the instructions block.
 */
export function buildMcpServer(ctx: ActionContext, session: McpSession, options: ServerOptions): McpServer {
  const { instructions, report, askRoots } = options;
  const server = new McpServer(SERVER_INFO, {
    // Logging: a 2026-07-28 client's level goes upstream with its call; a 2025 session's setLevel
    // is kept by the pipeline before it gets here (see log-gate.ts).
    capabilities: { tools: { listChanged: options.listChanged ?? false }, logging: {} },
    ...(instructions ? { instructions } : {}),
  });
  const register = server.registerTool.bind(server) as (
    name: string,
    config: unknown,
    cb: (args: unknown, extra: ServerContext) => Promise<ToolResult>,
  ) => unknown;
  for (const tool of options.tools) {
    register(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: tool.annotations,
        ...(options.apps && tool.view ? { _meta: toolViewMeta(tool.view) } : {}),
      },
      async (args, extra) => {
        if (askRoots)
          return inputRequired({
            inputRequests: { [ROOTS_INPUT_KEY]: inputRequired.listRoots() },
          }) as unknown as ToolResult;
        const result = (await tool.run(
          {
            ctx,
            session,
            origin: options.origin,
            shared: false,
            upstream: withGiveUp(upstreamCallExtra(extra, options.passInputRequests ?? false), options.giveUpWhen),
          },
          args as never,
        )) as ToolResult;
        report?.(outcomeOfToolResult(result));
        return result;
      },
    );
  }
  // Before the Skills extension: the SDK matches a read against templates in the order registered,
  // and upstream `skill://_servers/…` URIs must not reach Loadout's own `skill://{+path}`.
  const onInternal = options.onInternal ?? (() => {});
  if (options.upstreamItems?.items.length) {
    const relay = options.upstreamItems.relay;
    attachUpstreamItems(server, options.upstreamItems.items, (...args) =>
      relay(...args).catch((error) => {
        throw protocolErrorOf(error, onInternal);
      }),
    );
  }
  if (options.extension)
    new SkillsExtension({ source: guardedSource(registrySkillSource(ctx.db, session), onInternal) }).attach(server);
  if (options.extension && options.apps)
    for (const view of LOADOUT_VIEWS)
      registerAppResource(
        server,
        view.name,
        view.uri,
        { title: view.title, description: view.description, _meta: { ui: { prefersBorder: true } } },
        () => ({ contents: [{ uri: view.uri, mimeType: VIEW_MIME_TYPE, text: view.html }] }),
      );
  if (options.listChanged) {
    const declared = server.server.getCapabilities();
    server.server.registerCapabilities({
      ...(declared.resources
        ? { resources: { listChanged: true, ...(options.resourceSubscriptions ? { subscribe: true } : {}) } }
        : {}),
      ...(declared.prompts ? { prompts: { listChanged: true } } : {}),
    });
  }
  const listing = options.listing;
  // A listing with upstream tools: the registered tools as the SDK lists them, then the upstream
  // entries as cached (replacing the SDK's own handler).
  if (listing) {
    const tools = [
      ...options.tools.filter((t) => !t.proxied).map((t) => listedDefinition(t, options.apps ?? false)),
      ...listing,
    ];
    server.server.setRequestHandler("tools/list", () => ({ tools }) as ListToolsResult);
  }
  return server;
}

/**
 * A skill source whose every method answers a failure as the client may read it: a refusal in its
 * own words, anything else (a database error, whose message holds SQL and its parameters) only as a
 * failure, told to `onInternal`. The SDK would otherwise send the raw message.
 */
function guardedSource<S extends object>(source: S, onInternal: (error: unknown) => void): S {
  const guarded: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(source))
    guarded[name] =
      typeof value === "function"
        ? async (...args: unknown[]) => {
            try {
              return await (value as (...a: unknown[]) => Promise<unknown>).apply(source, args);
            } catch (error) {
              throw protocolErrorOf(error, onInternal);
            }
          }
        : value;
  return guarded as S;
}

const withGiveUp = (extra: UpstreamCallExtra, giveUpWhen: ServerOptions["giveUpWhen"]): UpstreamCallExtra =>
  giveUpWhen ? { ...extra, signal: giveUpWhen(extra.signal) } : extra;

/** A registered tool's entry in tools/list, as the SDK builds it (same JSON Schema target). */
function listedDefinition(tool: LoadoutTool, apps: boolean) {
  return {
    name: tool.name,
    ...(tool.title !== undefined ? { title: tool.title } : {}),
    ...(tool.description !== undefined ? { description: tool.description } : {}),
    inputSchema: tool.input["~standard"].jsonSchema.input({ target: "draft-2020-12" }),
    ...(tool.annotations !== undefined ? { annotations: tool.annotations } : {}),
    ...(apps && tool.view ? { _meta: toolViewMeta(tool.view) } : {}),
  };
}

import type { OpenAPIHono } from "@hono/zod-openapi";
import { UpstreamRpcError, type UpstreamTarget } from "@loadout/workers";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { normalizeProjectPath } from "../domain/activation";
import { callWorkspaceId } from "../domain/activity/call-workspace";
import { type Outcome, outcomeOfToolResult } from "../domain/activity/outcomes";
import { instructionsBlock } from "../domain/instructions";
import { projectFromRoots } from "../domain/roots";
import { hasScope } from "../domain/scopes";
import { BUILT_IN_TOOL_NAMES } from "../domain/servers/tool-names";
import { AppError, ERROR_CODES } from "../errors";
import type { AppEnv, AppVariables } from "../http/env";
import { describeError } from "../http/errors";
import { readLimited } from "../http/middleware/json-body";
import { requestOrigin as originOf } from "../http/origin";
import { bearerKey, principalFromBearer, type ResolvedBearer } from "../services/auth/resolve-bearer";
import type { ActionContext, Principal } from "../services/context";
import { immediateRecorder, type McpCall } from "../services/mcp/call-log";
import { activeItems, hasProjectScopedItems, type McpSession } from "../services/mcp/catalog";
import { recordClient } from "../services/mcp/clients";
import { findEndpoint } from "../services/mcp/endpoints";
import {
  callPrepared,
  callProxiedTool,
  type FoundTool,
  findProxiedTool,
  findSingleServer,
  lookupWorkspaces,
  type ProxiedCallOptions,
  type ProxiedTool,
  presentFound,
  proxiedCatalog,
  relayRequest,
  type SingleServer,
  upstreamCapabilities,
} from "../services/mcp/proxied";
import { openedTarget, type ServerDeps } from "../services/servers/upstreams";
import {
  answerWithResult,
  type FastCall,
  fastLaneCall,
  fastLaneList,
  fastLaneResultJson,
  LEGACY_STREAM_HEADERS,
  legacyEvent,
  legacyResultJson,
  toolError,
} from "./fast-lane";
import { legacySessions } from "./legacy-session";
import { buildRelayServer, type RelayOptions } from "./relay-server";
import {
  buildMcpServer,
  callSkillsTool,
  SERVER_INFO,
  type ServerOptions,
  type ToolOutcome,
  type ToolResult,
} from "./server";
import { SkillsToolInput } from "./tools";
import { type WarmRoute, WarmRoutes, warmKey } from "./warm-calls";

const MODES = new Set(["agent", "plan", "goal"]);
/** The requests the activity log keeps: calls and reads, not handshakes and lists. */
const LOGGED_METHODS = /^(tools\/call|skills\/get|resources\/read)$/;

/** What became of a call, from its JSON or SSE answer. */
export function outcomeOf(body: string): Outcome {
  const messages = body.trimStart().startsWith("{")
    ? [body]
    : body
        .split("\n")
        .filter((l) => l.startsWith("data:"))
        .map((l) => l.slice(5));
  for (const text of messages) {
    try {
      const message = JSON.parse(text) as {
        error?: unknown;
        result?: { isError?: boolean; content?: { text?: string }[] };
      };
      if (message.error) return "error";
      if (message.result) return outcomeOfToolResult(message.result);
    } catch {
      // A keep-alive or a partial line: not the answer.
    }
  }
  return "error";
}
/** MCP requests are small JSON-RPC messages; skill_edit with files is the largest. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;
/** Stateless as used (no `stream` option), so one serves every request. */
const utf8 = new TextDecoder();

interface PerRequest {
  ctx: ActionContext;
  session: McpSession;
  options: ServerOptions;
  /** A single-server URL's request: served by the relay (see relay-server.ts). */
  relay?: RelayOptions;
}

interface Pinned {
  endpointId: string;
  project: string | null;
  mode: McpSession["mode"];
  searchFetch: boolean;
}

/** A `/mcp/s/{ws}/{slug}` URL's parts. */
export interface SingleServerPath {
  ws: string;
  slug: string;
}

/** ChatGPT's connector names itself so (clientInfo or User-Agent); it only calls search and fetch. */
const CHATGPT = /openai|chatgpt/i;

/** The client's name and version: per request on 2026-07-28, in initialize on the 2025 revisions. */
export function clientOf(
  body: unknown,
): { name: string; version: string; protocolVersion: string | null; era: "modern" | "legacy" } | null {
  const params = (body as { params?: Record<string, unknown> } | undefined)?.params;
  const meta = params?._meta as Record<string, unknown> | undefined;
  const modern = meta?.["io.modelcontextprotocol/clientInfo"] as { name?: unknown; version?: unknown } | undefined;
  if (meta?.["io.modelcontextprotocol/protocolVersion"]) {
    return {
      name: typeof modern?.name === "string" ? modern.name : "unknown",
      version: typeof modern?.version === "string" ? modern.version : "",
      protocolVersion: String(meta["io.modelcontextprotocol/protocolVersion"]),
      era: "modern",
    };
  }
  const legacy = params?.clientInfo as { name?: unknown; version?: unknown } | undefined;
  if ((body as { method?: unknown } | undefined)?.method === "initialize" && legacy) {
    return {
      name: typeof legacy.name === "string" ? legacy.name : "unknown",
      version: typeof legacy.version === "string" ? legacy.version : "",
      protocolVersion: typeof params?.protocolVersion === "string" ? params.protocolVersion : null,
      era: "legacy",
    };
  }
  return null;
}

/**
 * What the endpoint needs of a request: Hono's context has it, and so does the Node host's MCP
 * lane, which answers without Hono (see entry/node-mcp-lane.ts).
 */
export interface McpContext {
  req: {
    url: string;
    method: string;
    path: string;
    header(name: string): string | undefined;
    query(name: string): string | undefined;
  };
  get<K extends keyof AppVariables>(key: K): AppVariables[K];
  set<K extends keyof AppVariables>(key: K, value: AppVariables[K]): void;
}

/** The request's body and its web form, which each host reaches its own way. */
export interface McpBody {
  /** The body's bytes; an AppError (payload_too_large) past `limit`. */
  read(limit: number): Promise<Uint8Array>;
  /** Aborted when the client goes away. */
  signal(): AbortSignal;
  /** Where the host can say it without a signal: calls the listener when the client goes away. */
  whenGone?(listener: () => void): void;
  /** The request as a web Request, for the SDK's handler; its body is read first. */
  web(): Request;
}

/** An answer the endpoint wrote itself (JSON), or the SDK handler's. */
export type McpReply = { status: number; headers: Record<string, string>; payload: string } | Response;

const jsonReply = (status: number, payload: string, headers: Record<string, string> = {}): McpReply => ({
  status,
  headers: { "content-type": "application/json", ...headers },
  payload,
});
const isWebReply = (reply: McpReply): reply is Response => !("payload" in reply);
const contentTypeOf = (reply: McpReply) =>
  (isWebReply(reply) ? reply.headers.get("content-type") : reply.headers["content-type"]) ?? "";

/** A JSON-RPC error for failures before the MCP server is reached (auth, origin, bad headers). */
function rpcError(c: McpContext, error: AppError): McpReply {
  return jsonReply(
    error.status,
    JSON.stringify({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: ERROR_CODES[error.code].jsonRpc,
        message: error.message,
        data: { code: error.code, requestId: c.get("requestId") },
      },
    }),
    error.headers,
  );
}

/**
 * Whether a 2026-07-28 client's call goes upstream with its capabilities, so that the upstream's
 * input requests pass through to it (and the call leaves the fast lane, which sends none). A
 * single-server URL forwards whatever the client declared. On `/mcp`, elicitation and sampling:
 * roots, which most clients declare, stay Loadout's own question (the session's project), so
 * those clients keep the fast lane; an upstream that needs them answers "needs input".
 */
function canBeAsked(capabilities: Record<string, unknown> | undefined, single: boolean): boolean {
  if (!capabilities) return false;
  if (single) return Object.keys(capabilities).length > 0;
  return Boolean(capabilities.elicitation || capabilities.sampling);
}

/**
 * An upstream's JSON-RPC error relayed as the answer to the client's request: in band (HTTP 200),
 * as the SDK answers a handler's error, except -32021, whose 400 the 2026-07-28 revision requires.
 */
function rpcErrorReply(call: Pick<FastCall, "id" | "era">, error: UpstreamRpcError): McpReply {
  return laneReply(
    call,
    JSON.stringify({
      jsonrpc: "2.0",
      id: call.id,
      error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
    }),
    error.code === -32021 && call.era === "modern" ? 400 : 200,
  );
}

/**
 * A fast-lane answer in its client's era, framed as the SDK's stateless transports frame it: one
 * JSON body on 2026-07-28, one SSE event for a 2025-era client.
 */
function laneReply(call: Pick<FastCall, "era">, answerJson: string, status = 200): McpReply {
  return call.era === "modern"
    ? jsonReply(status, answerJson)
    : { status, headers: { ...LEGACY_STREAM_HEADERS }, payload: legacyEvent(answerJson) };
}

/**
 * The MCP endpoint: `/mcp` on the official SDK's stateless handler, serving the 2026-07-28
 * revision and 2025-era clients on one path with no sticky state. Loadout's own checks run first:
 * Origin, the Bearer token (scope `mcp`), the session's project and mode.
 */
export function registerMcp(app: OpenAPIHono<AppEnv>, serverDeps: ServerDeps, sessionKey: Uint8Array): McpServe {
  const sessions = legacySessions(sessionKey);
  // Where nothing is cached (no change feed: Workers), nothing is decided ahead either.
  const warm = serverDeps.hot.freshness ? new WarmRoutes(serverDeps.hot) : null;
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const per = authInfo?.extra?.loadout as PerRequest | undefined;
      if (!per) throw new Error("MCP request without Loadout's context");
      return per.relay ? buildRelayServer(per.relay) : buildMcpServer(per.ctx, per.session, per.options);
    },
    { legacy: "stateless", maxRequestBodySize: MCP_BODY_LIMIT },
  );

  // Protected-resource metadata (RFC 9728) for each MCP URL: /mcp, saved endpoints and single servers.
  const metadata = (c: Context<AppEnv>, path: string) => {
    const origin = originOf(c);
    return c.json({
      resource: `${origin}${path}`,
      authorization_servers: [origin],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
      resource_name: "Loadout",
      resource_documentation: `${origin}/v1/docs`,
    });
  };
  app.get("/.well-known/oauth-protected-resource", (c) => metadata(c, "/mcp"));
  app.get("/.well-known/oauth-protected-resource/mcp", (c) => metadata(c, "/mcp"));
  app.get("/.well-known/oauth-protected-resource/mcp/e/:endpoint", (c) =>
    metadata(c, `/mcp/e/${c.req.param("endpoint")}`),
  );
  app.get("/.well-known/oauth-protected-resource/mcp/s/:ws/:slug", (c) =>
    metadata(c, `/mcp/s/${c.req.param("ws")}/${c.req.param("slug")}`),
  );

  const viaHono = async (c: Context<AppEnv>, endpointId: string | null, single: SingleServerPath | null = null) => {
    const reply = await serve(
      c,
      {
        read: (limit) => readLimited(c.req.raw, limit),
        signal: () => c.req.raw.signal,
        web: () => c.req.raw,
      },
      endpointId,
      single,
    );
    return isWebReply(reply) ? reply : c.body(reply.payload, reply.status as ContentfulStatusCode, reply.headers);
  };
  app.all("/mcp", (c) => viaHono(c, null));
  app.all("/mcp/e/:endpoint", (c) => viaHono(c, c.req.param("endpoint")));
  app.all("/mcp/s/:ws/:slug", (c) => viaHono(c, null, { ws: c.req.param("ws"), slug: c.req.param("slug") }));
  return serve;

  /**
   * A tools/call on a warm route (see warm-calls.ts): the body read and checked as the fast lane
   * checks it, then the call with every check of dispatch, answered and logged as on the usual
   * path. Null, with nothing called, for a request the route does not fit (another tool, a client
   * that could be asked for roots or pass input requests on, anything the fast lane leaves to the
   * SDK): the usual path then serves it.
   */
  async function serveWarm(c: McpContext, io: McpBody, route: WarmRoute): Promise<McpReply | null> {
    let parsedBody: unknown;
    try {
      parsedBody = JSON.parse(utf8.decode(await io.read(MCP_BODY_LIMIT)));
    } catch {
      return null;
    }
    const fast = fastLaneCall("POST", (name) => c.req.header(name), parsedBody);
    if (!fast || fast.name !== route.tool.name) return null;
    const capabilities = fast.clientCapabilities;
    if (canBeAsked(capabilities, route.single) || (route.mayAskRoots && capabilities.roots)) return null;
    const { session } = route;
    const principal = session.principal;
    c.set("principal", principal);
    const ctx = callContext(c, principal);
    const client = clientOf(parsedBody);
    if (client) noteClient(c, ctx, client, session, route.endpointId);
    const started = performance.now();
    let answer: ToolResult | UpstreamRpcError;
    try {
      answer = (await callPrepared(ctx.db, session, serverDeps, route.found, route.direct, route.tool.name, fast.args, {
        ...giveUpWith(io, ctx.now),
        relayErrors: route.single,
      })) as ToolResult;
    } catch (error) {
      answer = error instanceof UpstreamRpcError ? error : toolError(error, ctx);
    }
    c.set("lane", "warm");
    const response =
      answer instanceof UpstreamRpcError
        ? rpcErrorReply(fast, answer)
        : jsonReply(200, answerWithResult(fast.id, fastLaneResultJson(answer, SERVER_INFO)));
    const outcome = answer instanceof UpstreamRpcError ? "tool_error" : outcomeOfToolResult(answer);
    logCall(c, ctx, parsedBody, response, {
      session,
      client,
      endpointId: route.endpointId,
      server: route.found.server,
      outcome: () => outcome,
      started,
    });
    return response;
  }

  /**
   * Keeps what this request decided as a warm route, unless anything was heard of since the
   * request began (its decisions may not have seen it). Its stamps are taken now, so a change
   * heard before it is kept ends it all the same. The pool's prepared call is made from the target
   * the call just used, once its (cached) promise settles: nothing here waits.
   */
  function keepWarm(
    c: McpContext,
    key: string,
    cacheKey: string,
    sequence: number | undefined,
    decided: Omit<WarmRoute, "resolved" | "direct" | "userStamp" | "toolStamp" | "storedAt">,
  ): void {
    if (!warm) return;
    const stamps = warm.stampsSince(sequence, decided.session.principal.userId, decided.toolWorkspaces);
    const resolved = warm.cachedPrincipal(cacheKey, c.get("now"));
    if (!stamps || resolved?.principal !== decided.session.principal) return;
    const { server, tool } = decided.found;
    const storedAt = c.get("now").getTime();
    const keep = (target: UpstreamTarget | null) =>
      warm.keep(key, {
        ...decided,
        resolved,
        direct: target && serverDeps.pool ? serverDeps.pool.directTool(target, tool.name) : null,
        ...stamps,
        storedAt,
      });
    if (!serverDeps.pool || server.status === "failed") keep(null);
    else
      openedTarget(server, serverDeps.box).then(keep, () => {
        // The call just failed to open it and said so: no route.
      });
  }

  async function serve(
    c: McpContext,
    io: McpBody,
    endpointId: string | null,
    singleServer: SingleServerPath | null = null,
  ): Promise<McpReply> {
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    // Taken before anything is read: a warm route is kept only if nothing was heard of since.
    const sequence = serverDeps.hot.live?.sequence;
    const cacheKey = match?.[1] && sequence !== undefined ? bearerKey(match[1]) : undefined;
    // A tools/call decided before with the same inputs skips the deciding (see warm-calls.ts).
    let warmAt: string | null = null;
    if (warm && cacheKey && c.req.method === "POST" && c.req.header("mcp-method") === "tools/call") {
      warmAt = warmKey(cacheKey, c.req);
      const route = warm.find(warmAt, cacheKey, c.get("now"));
      const reply = route ? await serveWarm(c, io, route) : null;
      if (reply) return reply;
    }

    const origin = originOf(c);
    const allowedHosts = c.get("deps").allowedHosts;
    if (allowedHosts) {
      const hostname = hostnameOf(c.req.header("host") ?? "invalid");
      if (!allowedHosts.includes(hostname)) {
        return rpcError(
          c,
          new AppError(
            "forbidden",
            `Host ${hostname} is not one this server answers to; set LOADOUT_PUBLIC_URL to the address you use.`,
          ),
        );
      }
    }
    const sentOrigin = c.req.header("origin");
    // DNS rebinding: a browser page on another site must not reach the endpoint.
    if (sentOrigin && sentOrigin !== "null") {
      let host: string | null = null;
      try {
        host = new URL(sentOrigin).host;
      } catch {
        host = null;
      }
      if (host !== new URL(origin).host)
        return rpcError(c, new AppError("forbidden", `Origin ${sentOrigin} may not use this MCP endpoint.`));
    }

    if (!match?.[1]) {
      return rpcError(
        c,
        new AppError(
          "unauthorized",
          "This MCP endpoint needs a Loadout API token with the mcp scope (`Authorization: Bearer lo_…`), or an OAuth access token from connecting the app.",
          { headers: { "WWW-Authenticate": challengeFor(origin, endpointId, singleServer) } },
        ),
      );
    }
    let resolved: ResolvedBearer;
    try {
      resolved = await principalFromBearer(c.get("db"), match[1], c.get("now"), serverDeps.hot, cacheKey);
    } catch (error) {
      if (error instanceof AppError)
        return rpcError(
          c,
          new AppError(error.code, error.message, {
            headers: { "WWW-Authenticate": `${challengeFor(origin, endpointId, singleServer)}, error="invalid_token"` },
          }),
        );
      throw error;
    }
    // An OAuth access token is bound to one MCP URL (RFC 8707); API tokens reach every endpoint.
    if (
      resolved.audience !== null &&
      resolved.audience !== `${new URL(origin).origin}${c.req.path.replace(/\/$/, "")}`
    ) {
      return rpcError(
        c,
        new AppError(
          "unauthorized",
          `This access token was issued for ${resolved.audience}, not this URL. Connect the app to this URL.`,
          {
            headers: { "WWW-Authenticate": `${challengeFor(origin, endpointId, singleServer)}, error="invalid_token"` },
          },
        ),
      );
    }
    const principal = resolved.principal;
    c.set("principal", principal);
    if (resolved.after) {
      const after = resolved.after;
      c.get("defer")(() => after(c.get("db")));
    }
    if (!hasScope(principal.scopes, "mcp")) {
      return rpcError(
        c,
        new AppError("insufficient_scope", 'This token lacks the "mcp" scope. Create a token with it.', {
          headers: {
            "WWW-Authenticate": `${challengeFor(origin, endpointId, singleServer)}, error="insufficient_scope"`,
          },
        }),
      );
    }

    let pinned: Pinned | null = null;
    if (endpointId) {
      const endpoint = await serverDeps.hot.byUser(
        `endpoint\u0000${principal.userId}\u0000${endpointId}`,
        principal.userId,
        () => findEndpoint({ db: c.get("db"), principal }, endpointId),
      );
      // Another user's endpoint is reported exactly like a missing one.
      if (!endpoint) {
        return rpcError(
          c,
          new AppError(
            "not_found",
            `Endpoint "${endpointId}" was not found. Copy its URL again from the Connect page.`,
          ),
        );
      }
      pinned = {
        endpointId: endpoint.id,
        project: endpoint.project,
        mode: endpoint.mode,
        searchFetch: endpoint.searchFetch,
      };
    }
    let single: SingleServer | undefined;
    if (singleServer) {
      // Another tenant's workspace or server is reported exactly like a missing one.
      const workspace = resolved.workspaces.find((w) =>
        singleServer.ws === "me" ? w.kind === "personal" : w.slug === singleServer.ws || w.id === singleServer.ws,
      );
      if (!workspace)
        return rpcError(
          c,
          new AppError("not_found", `Server "${singleServer.ws}/${singleServer.slug}" was not found.`),
        );
      single = { workspaceId: workspace.id, slug: singleServer.slug };
    }
    // Pins chosen on an OAuth consent page win over the URL's: they are what the user consented to.
    const mode =
      resolved.pins?.mode ?? pinned?.mode ?? c.req.query("mode") ?? c.req.header("x-loadout-mode") ?? "agent";
    if (!MODES.has(mode))
      return rpcError(c, new AppError("invalid_request", `Unknown mode "${mode}": use agent, plan or goal.`));
    const rawProject =
      resolved.pins?.project ??
      (pinned ? pinned.project : (c.req.query("project") ?? c.req.header("x-loadout-project") ?? null));
    let project = rawProject ? normalizeProjectPath(rawProject) || null : null;

    // A 2026-07-28 call names its tool in a header: the lookup starts while the body arrives, and
    // its answer is used only if the body names the same tool (the fast lane requires that anyway).
    const builtIn = BUILT_IN_TOOL_NAMES as readonly string[];
    const named =
      c.req.method === "POST" && c.req.header("mcp-method") === "tools/call"
        ? c.req.header("mcp-name")?.trim()
        : undefined;
    const early =
      named && (single || !builtIn.includes(named))
        ? { name: named, found: findProxiedTool(c.get("db"), serverDeps, resolved, named, single) }
        : undefined;
    // Awaited below when the body agrees; a failure is then thrown there, not left unhandled here.
    if (early?.found instanceof Promise) early.found.catch(() => {});

    let parsedBody: unknown;

    if (c.req.method === "POST") {
      let bytes: Uint8Array;
      try {
        bytes = await io.read(MCP_BODY_LIMIT);
      } catch (error) {
        if (error instanceof AppError) return rpcError(c, error);
        throw error;
      }
      try {
        parsedBody = JSON.parse(utf8.decode(bytes));
      } catch {
        return jsonReply(
          400,
          JSON.stringify({
            jsonrpc: "2.0",
            id: null,
            error: { code: -32700, message: "Parse error: the body is not JSON." },
          }),
        );
      }
    }

    const ctx = callContext(c, principal);

    // The third source of a project: the client's MCP roots. A 2026-07-28 client that declares the
    // roots capability is asked for them (an input-required answer to its tools/call) when nothing
    // else named a project and the user has items scoped to projects; its retry carries them.
    let askRoots = false;
    const rpcParams = (parsedBody as { params?: Record<string, unknown> } | undefined)?.params;
    const rpcMeta = rpcParams?._meta as Record<string, unknown> | undefined;
    const capabilities = rpcMeta?.["io.modelcontextprotocol/clientCapabilities"] as { roots?: unknown } | undefined;
    if (
      !pinned &&
      project === null &&
      (parsedBody as { method?: unknown } | undefined)?.method === "tools/call" &&
      rpcMeta?.["io.modelcontextprotocol/protocolVersion"] &&
      capabilities?.roots
    ) {
      const fromRoots = projectFromRoots(rpcParams?.inputResponses);
      if (fromRoots !== undefined) project = fromRoots;
      else
        askRoots = await hasProjectScopedItems(
          ctx.db,
          resolved.workspaces.map((w) => w.id),
          serverDeps.hot,
        );
    }
    const session: McpSession = {
      principal,
      workspaces: resolved.workspaces,
      project,
      mode: mode as McpSession["mode"],
      caches: serverDeps.hot,
    };
    // The instructions are only read by the handshake; other requests skip the catalog query.
    const method = (parsedBody as { method?: unknown } | undefined)?.method;
    const instructions =
      (method === "initialize" || method === "server/discover") && !single
        ? instructionsBlock(
            (await activeItems(ctx.db, session)).map((i) => ({
              address: i.address,
              kind: i.kind,
              description: i.description,
            })),
            session.mode,
          )
        : null;
    // A 2025-era client names itself in initialize only; afterwards its session id carries that.
    const sessionId = c.req.header("mcp-session-id");
    const handshake =
      sessionId && !rpcMeta?.["io.modelcontextprotocol/protocolVersion"] ? sessions.decode(sessionId) : null;
    const client = clientOf(parsedBody) ?? (handshake ? { ...handshake, era: "legacy" as const } : null);
    const searchFetch =
      Boolean(pinned?.searchFetch) ||
      CHATGPT.test(client?.name ?? "") ||
      CHATGPT.test(c.req.header("user-agent") ?? "");
    if (client) noteClient(c, ctx, client, session, pinned?.endpointId ?? null);
    const params = (parsedBody as { params?: { name?: unknown } } | undefined)?.params;
    const needs: ServerOptions["needs"] =
      method === "tools/call" && typeof params?.name === "string"
        ? { tool: params.name }
        : typeof method === "string" && /^(skills\/|resources\/)/.test(method)
          ? "extension"
          : "all";
    // Upstream tools: the whole catalog for a listing, the one tool a call names (looked up, with
    // every check made again at dispatch), nothing for the other requests.
    let upstreamTools: ProxiedTool[] = [];
    let foundTool: FoundTool | null = null;
    let upstreamListing: ProxiedTool["definition"][] | undefined;
    let catalog: ProxiedTool[] | undefined;
    if (method === "tools/list") {
      catalog = await proxiedCatalog(
        ctx.db,
        session,
        serverDeps,
        c.get("deps").logger,
        ctx.now,
        single,
        c.get("defer"),
      );
      if (catalog.length > 0) upstreamListing = catalog.map((t) => t.definition);
    } else if (typeof needs === "object" && (single || !builtIn.includes(needs.tool))) {
      const found = await (early?.name === needs.tool
        ? early.found
        : findProxiedTool(ctx.db, serverDeps, session, needs.tool, single));
      foundTool = found;
      if (found) upstreamTools = [presentFound(found, session, Boolean(single))];
    }
    let toolOutcome: ToolOutcome | undefined;
    // An upstream's input requests (elicitations) reach only a 2026-07-28 client that can answer them.
    const passInputRequests = client?.era === "modern" && canBeAsked(capabilities, Boolean(single));
    const started = performance.now();
    let response: McpReply | undefined;
    const lane = c.get("deps").mcpFastLane !== false;
    const plain = lane && !askRoots ? fastLaneCall(c.req.method, (name) => c.req.header(name), parsedBody) : null;
    // A 2025 client on a single-server URL hears the upstream's log messages during a call, which
    // only the SDK's stream carries (2026-07-28 clients ask for them in the envelope, off the lane).
    const fast = plain && !(plain.era === "legacy" && single) ? plain : null;
    // A listing with upstream tools, answered before for this catalog (the cached array) and the
    // same built-ins: the SDK's answer again, with this request's id.
    const listing =
      lane && catalog?.length ? fastLaneList(c.req.method, (name) => c.req.header(name), parsedBody) : null;
    const listingKey = String(searchFetch);
    const remembered = listing && catalog ? listingAnswers.get(catalog)?.get(listingKey) : undefined;
    if (listing && remembered) {
      c.set("lane", "fast");
      response = jsonReply(200, answerWithResult(listing.id, remembered));
    }
    if (fast) {
      let result: ToolResult | null;
      try {
        result = await fastLaneResult(fast, {
          ctx,
          session,
          single: Boolean(single),
          upstreamTool: upstreamTools[0],
          passInputRequests,
          call: (tool, args) =>
            callProxiedTool(ctx.db, session, serverDeps, tool, tool.name, args, {
              ...giveUpWith(io, ctx.now),
              relayErrors: Boolean(single),
            }),
        });
      } catch (error) {
        if (!(error instanceof UpstreamRpcError)) throw error;
        c.set("lane", "fast");
        toolOutcome = "tool_error";
        response = rpcErrorReply(fast, error);
        result = null;
      }
      if (result) {
        c.set("lane", "fast");
        toolOutcome = outcomeOfToolResult(result);
        // Only the skills tool's results can be shared between calls; an upstream's is new each time.
        const shared = fast.name === "skills" && !single;
        response = laneReply(fast, answerWithResult(fast.id, resultJson(fast, result, shared)));
        const tool = upstreamTools[0];
        if (warmAt && cacheKey && foundTool && tool?.name === fast.name && !shared)
          keepWarm(c, warmAt, cacheKey, sequence, {
            session,
            endpointId: pinned?.endpointId ?? null,
            single: Boolean(single),
            mayAskRoots: !pinned && project === null,
            found: foundTool,
            tool,
            toolWorkspaces: lookupWorkspaces(session, single),
          });
      }
    }
    if (!response) {
      // The SDK's path: its per-request server, built from this (see buildMcpServer), or for a
      // single-server URL the relay (see relay-server.ts).
      const singleRow = single ? await findSingleServer(ctx.db, serverDeps, single) : null;
      const relay: RelayOptions | undefined = single
        ? {
            upstreamCapabilities:
              // A listing needs none; a call's log messages need logging declared.
              singleRow && method !== "tools/list" ? await upstreamCapabilities(session, serverDeps, singleRow) : {},
            tools: catalog ?? upstreamTools,
            askRoots,
            passInputRequests,
            report: (outcome) => {
              toolOutcome = outcome;
            },
            onInternal: (error) =>
              ctx.logger?.log("error", "relayed request failed", {
                requestId: ctx.requestId,
                error: describeError(error),
              }),
            call: (tool, args, extra) =>
              callProxiedTool(ctx.db, session, serverDeps, tool, tool.name, args, {
                now: ctx.now,
                relayErrors: true,
                ...extra,
              }),
            relay: (relayed, params, extra) => {
              if (!singleRow) throw new AppError("not_found", `Server "${single.slug}" was not found.`);
              return relayRequest(ctx.db, session, serverDeps, singleRow, relayed, params, { now: ctx.now, ...extra });
            },
          }
        : undefined;
      const per: PerRequest = {
        ...(relay ? { relay } : {}),
        ctx,
        session,
        options: {
          instructions,
          searchFetch,
          origin,
          needs,
          askRoots,
          passInputRequests,
          report: (outcome) => {
            toolOutcome = outcome;
          },
          upstream: {
            tools: upstreamTools,
            ...(upstreamListing ? { listing: upstreamListing } : {}),
            only: Boolean(single),
            call: (tool, args, extra) =>
              callProxiedTool(ctx.db, session, serverDeps, tool, tool.name, args, { now: ctx.now, ...extra }),
          },
        },
      };
      response = await handler.fetch(io.web(), {
        parsedBody,
        authInfo: {
          token: "loadout",
          clientId: principal.kind === "token" ? principal.tokenId : principal.userId,
          scopes: [...principal.scopes],
          extra: { loadout: per },
        },
      });
    }
    if (
      listing &&
      catalog &&
      !remembered &&
      isWebReply(response) &&
      response.status === 200 &&
      contentTypeOf(response).startsWith("application/json")
    ) {
      const answer = (await response.clone().json()) as { result?: unknown };
      if (answer.result) {
        const byBuiltIns = listingAnswers.get(catalog) ?? new Map<string, string>();
        byBuiltIns.set(listingKey, JSON.stringify(answer.result));
        listingAnswers.set(catalog, byBuiltIns);
      }
    }
    if (method === "initialize" && client?.era === "legacy" && isWebReply(response) && response.status === 200)
      response = withSessionId(response, sessions.encode(client));
    logCall(c, ctx, parsedBody, response, {
      session,
      client,
      endpointId: pinned?.endpointId ?? null,
      server: upstreamTools[0]?.server ?? null,
      outcome: () => toolOutcome,
      started,
    });
    return response;
  }
}

/**
 * How a proxied call hears that its client left: the host's listener where it has one (the Node
 * lane), else the request's signal.
 */
function giveUpWith(io: McpBody, now: Date): ProxiedCallOptions {
  return io.whenGone ? { now, whenGone: (listener) => io.whenGone?.(listener) } : { now, signal: io.signal() };
}

/** The SDK's answer to a 2025 initialize, with the session id that carries the handshake (see legacy-session.ts). */
function withSessionId(response: Response, id: string): Response {
  const headers = new Headers(response.headers);
  headers.set("mcp-session-id", id);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** Records, after the answer, that this client was seen (the Connect page lists clients). */
function noteClient(
  c: McpContext,
  ctx: ActionContext,
  client: NonNullable<ReturnType<typeof clientOf>>,
  session: McpSession,
  endpointId: string | null,
): void {
  const sighting = {
    clientName: client.name.slice(0, 200),
    clientVersion: client.version.slice(0, 100),
    era: client.era,
    protocolVersion: client.protocolVersion,
    project: session.project,
    mode: session.mode,
    endpointId,
  };
  c.get("defer")(() => recordClient(ctx.db, ctx.principal, sighting, ctx.now));
}

/** What the activity log records of a call besides its request and answer. */
interface CallFacts {
  session: McpSession;
  client: ReturnType<typeof clientOf>;
  endpointId: string | null;
  /** The upstream server a proxied call went to. */
  server: { workspaceId: string; slug: string } | null;
  /** The outcome a tool reported, once the answer is out (JSON answers; others are read again). */
  outcome: () => ToolOutcome | undefined;
  started: number;
}

/**
 * Records a call, a read or a skill_edit in the activity log, after the answer (see LOGGED_METHODS):
 * kept by the team whose tool or item the call named, else by the caller's personal workspace.
 */
function logCall(c: McpContext, ctx: ActionContext, parsedBody: unknown, response: McpReply, facts: CallFacts): void {
  const { session, client, started } = facts;
  const { principal, mode, project } = session;
  const rpc = parsedBody as { id?: unknown; method?: unknown; params?: Record<string, unknown> } | undefined;
  if (typeof rpc?.method !== "string" || rpc.id === undefined || !LOGGED_METHODS.test(rpc.method)) return;
  const params = rpc.params ?? {};
  const args = params.arguments as Record<string, unknown> | undefined;
  const target =
    typeof params.name === "string" ? params.name : typeof params.uri === "string" ? params.uri : rpc.method;
  const item =
    typeof args?.name === "string"
      ? args.name
      : typeof args?.id === "string"
        ? args.id
        : typeof params.uri === "string"
          ? params.uri
          : null;
  const workspaceId = callWorkspaceId(session.workspaces, {
    toolWorkspaceId: facts.server?.workspaceId ?? null,
    names: [item, target],
  });
  // skill_edit is not even offered outside agent mode: calling it is a plan-mode refusal.
  const planRefused = target === "skill_edit" && mode !== "agent" && rpc.method === "tools/call";
  if (target === "skill_edit" && rpc.method === "tools/call") c.set("wrote", true);
  if (!workspaceId) return;
  // A tool call answered as JSON has reported its outcome already; other answers (SSE, the
  // extension's reads) are read again after they have gone to the client.
  const answered =
    rpc.method === "tools/call" && (!isWebReply(response) || contentTypeOf(response).startsWith("application/json"));
  const copy = answered ? null : isWebReply(response) ? response.clone() : response.payload;
  // Its outcome and time are filled in after the answer (an object of this many fields, spread
  // again to add them, costs four times as much memory).
  const call: McpCall = {
    workspaceId,
    userId: principal.userId,
    tokenId: principal.kind === "token" ? principal.tokenId : null,
    requestId: ctx.requestId,
    at: ctx.now,
    method: rpc.method,
    target,
    item,
    // 2025-era clients name themselves in initialize only: their calls fall back to the User-Agent.
    client: client ? `${client.name} ${client.version}`.trim() : (c.req.header("user-agent")?.slice(0, 100) ?? null),
    mode,
    project,
    server: facts.server?.slug ?? null,
    endpoint: facts.endpointId,
    outcome: "error",
    ms: 0,
  };
  const recorder = c.get("deps").callRecorder ?? immediateRecorder;
  c.get("defer")(async () => {
    call.outcome = planRefused
      ? "plan_refused"
      : copy !== null
        ? outcomeOf(typeof copy === "string" ? copy : await copy.text())
        : (facts.outcome() ?? "error");
    call.ms = Math.round((performance.now() - started) * 100) / 100;
    await recorder.record(ctx.db, call);
  });
}

/** Host headers seen, by their hostname: the same few on every request, so each is parsed once. */
const hostnames = new Map<string, string>();
function hostnameOf(host: string): string {
  let hostname = hostnames.get(host);
  if (hostname === undefined) {
    hostname = new URL(`http://${host}`).hostname;
    // Any client can send any Host: the map is kept small.
    if (hostnames.size >= 256) hostnames.clear();
    hostnames.set(host, hostname);
  }
  return hostname;
}

/** The Bearer challenge of a refusal: where this MCP URL's protected-resource metadata is. */
function challengeFor(origin: string, endpointId: string | null, single: SingleServerPath | null): string {
  const path = endpointId ? `/mcp/e/${endpointId}` : single ? `/mcp/s/${single.ws}/${single.slug}` : "/mcp";
  return `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource${path}", scope="mcp"`;
}

/** Serves one MCP request, for a host that answers without Hono. */
export type McpServe = (
  c: McpContext,
  io: McpBody,
  endpointId: string | null,
  single?: SingleServerPath | null,
) => Promise<McpReply>;

/**
 * Fast-lane results as the SDK encodes them, by result object: a shared `skills get` result
 * (see callSkillsTool) is encoded once, not on every call.
 */
const encoded = { modern: new WeakMap<object, string>(), legacy: new WeakMap<object, string>() };
function resultJson(call: Pick<FastCall, "era">, result: ToolResult, shared: boolean): string {
  const encode = () => (call.era === "modern" ? fastLaneResultJson(result, SERVER_INFO) : legacyResultJson(result));
  if (!shared) return encode();
  let json = encoded[call.era].get(result);
  if (json === undefined) {
    json = encode();
    encoded[call.era].set(result, json);
  }
  return json;
}

/**
 * tools/list answers (their results, serialized) by cached catalog: the catalog cache hands out
 * the same array until one of its workspaces' catalogs changes, so an answer lives exactly as long
 * as the listing it was made from. Keyed within by what else shapes the built-ins (search/fetch).
 */
const listingAnswers = new WeakMap<object, Map<string, string>>();

/** Whether an upstream tool's input schema asks for arguments mirrored in headers (the SDK checks those). */
const mirrorsHeaders = new WeakMap<object, boolean>();
function declaresMcpHeaders(tool: ProxiedTool): boolean {
  let declares = mirrorsHeaders.get(tool.tool);
  if (declares === undefined) {
    declares = JSON.stringify(tool.tool.inputSchema).includes("x-mcp-header");
    mirrorsHeaders.set(tool.tool, declares);
  }
  return declares;
}

/**
 * A fast-lane call's result: the skills tool, or the one upstream tool the call names, as the
 * SDK's server would run them. Null (before anything ran) sends the request down the SDK's path:
 * arguments the tool's schema refuses, a tool only the SDK serves, an upstream that could ask the
 * client for input.
 */
async function fastLaneResult(
  call: FastCall,
  lane: {
    ctx: ActionContext;
    session: McpSession;
    single: boolean;
    upstreamTool: ProxiedTool | undefined;
    passInputRequests: boolean;
    call: (tool: ProxiedTool, args: Record<string, unknown> | undefined) => Promise<unknown>;
  },
): Promise<ToolResult | null> {
  if (call.name === "skills" && !lane.single) {
    const input = SkillsToolInput.safeParse(call.args ?? {});
    if (!input.success) return null;
    try {
      return await callSkillsTool(lane.ctx, lane.session, input.data, true);
    } catch (error) {
      return toolError(error, lane.ctx);
    }
  }
  const tool = lane.upstreamTool;
  if (!tool || tool.name !== call.name || lane.passInputRequests || declaresMcpHeaders(tool)) return null;
  try {
    return (await lane.call(tool, call.args)) as ToolResult;
  } catch (error) {
    // An upstream's own error, on a URL that relays it as such (the caller answers it).
    if (error instanceof UpstreamRpcError) throw error;
    return toolError(error, lane.ctx);
  }
}

/** The actions' context for an MCP request; the logger takes what an error result may not say. */
function callContext(c: McpContext, principal: Principal): ActionContext {
  return { db: c.get("db"), principal, requestId: c.get("requestId"), now: c.get("now"), logger: c.get("deps").logger };
}

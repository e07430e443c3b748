import { UpstreamRpcError, type UpstreamTarget } from "@loadout/workers";
import { createMcpHandler, type McpServerFactory, type ServerEvent } from "@modelcontextprotocol/server";
import { outcomeOfToolResult } from "../domain/activity/outcomes";
import { isViewUri, listedFor, uiNegotiated, viewRefusal } from "../domain/apps/ui";
import { instructionsBlock } from "../domain/instructions";
import { isLogLevel, LOG_LEVELS, type LogLevel } from "../domain/mcp/log-levels";
import { projectFromRoots } from "../domain/roots";
import { BUILT_IN_TOOL_NAMES } from "../domain/servers/tool-names";
import { AppError, describeError, jsonRpcErrorBody } from "../errors";
import { bearerKey, knownBearer, principalFromBearer, type ResolvedBearer } from "../services/auth/resolve-bearer";
import { type Freshness, stampKeys } from "../services/cache/freshness";
import { pollStamps, readCursor } from "../services/cache/stamps";
import type { ActionContext, Principal } from "../services/context";
import { kindsFittedOut } from "../services/devices/fitting";
import { activeItems, hasProjectScopedItems, type McpSession } from "../services/mcp/catalog";
import { keepSessionLevel, sessionLevel } from "../services/mcp/legacy-levels";
import { subscriptionKey } from "../services/mcp/legacy-subscriptions";
import { PendingAnswers } from "../services/mcp/pending-answers";
import {
  findProxiedTool,
  findSingleServer,
  lookupWorkspaces,
  type ProxiedCallOptions,
  type ProxiedTool,
  presentFound,
  proxiedCatalog,
  type ResourceWatches,
  relayRequest,
  resourceWatches,
  upstreamCapabilities,
} from "../services/mcp/proxied";
import { type DecidedSession, decideSession, sessionKey } from "../services/mcp/session";
import { sessionItems, sessionResourceWatches } from "../services/mcp/session-items";
import { type Remembered, SessionMemo } from "../services/mcp/session-memo";
import { openedTarget, type ServerDeps } from "../services/servers/upstreams";
import { type PlainCall, plainCall, plainLegacyNotification, plainListing } from "./classify";
import { answerWithResult, legacyResultJson, resultJson, rpcErrorReply } from "./encode";
import { contentTypeOf, isWebReply, jsonReply, type McpExchange, type McpReply } from "./exchange";
import { authenticate, bearerOf, missingToken, originOf, refusedHost, rpcError } from "./guards";
import { sessionBuiltIns } from "./lazy-tools";
import {
  answersIn,
  ClientAnswerError,
  type LegacyStream,
  legacyCallStream,
  legacyRequestParams,
  MAX_INPUT_ROUNDS,
} from "./legacy-input";
import { legacyListenStream, PRIMING_REVISION } from "./legacy-listen";
import { legacySessions } from "./legacy-session";
import { legacySubscription, subscriptionUpdates } from "./legacy-subscribe";
import { bothSources, listChanges, polledChanges } from "./list-changes";
import { logGate } from "./log-gate";
import { clientOf, logCall, noteClient } from "./record";
import { type LoadoutTool, parsedInput, upstreamTool } from "./registry";
import { buildRelayServer, type RelayOptions } from "./relay-server";
import { errorResult, failure, type ToolResult } from "./results";
import { buildMcpServer, SERVER_INFO, type ServerOptions, type ToolOutcome } from "./server";
import { readSessionInputs } from "./session-inputs";
import { upstreamInstructionItems } from "./upstream-skills-tool";

/** MCP requests are small JSON-RPC messages; skill_edit with files is the largest. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;
const utf8 = new TextDecoder();
/** ChatGPT's connector names itself so (clientInfo or User-Agent); it only calls search and fetch. */
const CHATGPT = /openai|chatgpt/i;
const BUILT_IN: readonly string[] = BUILT_IN_TOOL_NAMES;

/** Serves one MCP request: what every host hands its MCP requests to. */
export type McpServe = (exchange: McpExchange) => Promise<McpReply>;

/** What the SDK's per-request server is built from (see createMcpHandler below). */
interface PerRequest {
  ctx: ActionContext;
  session: McpSession;
  options: ServerOptions;
  /** A single-server URL's request: served by the relay (see relay-server.ts). */
  relay?: RelayOptions;
}

/**
 * Whether a 2026-07-28 client's call goes upstream with its capabilities, so that the upstream's
 * input requests pass through to it (and the pipeline leaves the call to the SDK, which can carry
 * them). A single-server URL forwards whatever the client declared. On `/mcp`, elicitation and
 * sampling: roots, which most clients declare, stay Loadout's own question (the session's project),
 * so those clients' calls are still answered by the pipeline; an upstream that needs them answers
 * "needs input".
 */
function canBeAsked(capabilities: Record<string, unknown> | undefined, single: boolean): boolean {
  if (!capabilities) return false;
  if (single) return Object.keys(capabilities).length > 0;
  return Boolean(capabilities.elicitation || capabilities.sampling);
}

/**
 * The MCP pipeline, one for every host (the Hono route, the Node adapter, the Worker): guards →
 * session inputs → the session (memoised on those inputs' key) → the body → the registry's tool →
 * the answer, written here for a plain request or by the SDK's stateless handler with the same
 * registry → the call recorded, after the answer.
 */
/** Requests that read the upstreams' resources, templates and prompts at /mcp (the handshake declares them). */
const ITEM_METHODS = /^(initialize|server\/discover|subscriptions\/listen|resources\/|prompts\/|completion\/complete)/;

export function mcpPipeline(
  instanceDeps: ServerDeps,
  signingKey: Uint8Array,
  // The answers 2025-era clients owe to input requests Loadout sent them (see legacy-input.ts).
  pending: PendingAnswers = new PendingAnswers(),
): McpServe {
  const sessions = legacySessions(signingKey);
  // Where no change feed runs (Workers) nothing is memoised: each request polls its counters and
  // serves through its own view of the caches instead (see PolledFreshness).
  const memo = instanceDeps.hot.freshness ? new SessionMemo<DecidedSession, LoadoutTool>(instanceDeps.hot) : null;
  const factory: McpServerFactory = ({ authInfo }) => {
    const per = authInfo?.extra?.loadout as PerRequest | undefined;
    if (!per) throw new Error("MCP request without Loadout's context");
    return per.relay ? buildRelayServer(per.relay) : buildMcpServer(per.ctx, per.session, per.options);
  };
  const handler = createMcpHandler(factory, { legacy: "stateless", maxRequestBodySize: MCP_BODY_LIMIT });
  // Where the change feed runs (Node), a 2026-07-28 client may listen for its lists' changes;
  // where it does not (Workers), a listen stream polls its own counters (see polledChanges).
  const feed = instanceDeps.hot.freshness;
  const listenable = Boolean(feed) || Boolean(instanceDeps.polled);
  // A 2025-era client opens its GET stream unasked, right after its handshake. On Workers it is
  // served where the ChangeFeed object answers the stream's counters: polling Postgres instead
  // would hold a database connection for every connected client.
  const legacyListenable = Boolean(feed) || Boolean(instanceDeps.polled && instanceDeps.changeFeed);

  /**
   * Keeps an upstream tool a plain call looked up now, for the session's next calls, with the pool's
   * prepared call made from the target this call just used once its (cached) promise settles:
   * nothing here waits.
   */
  function keepTool(
    remembered: Remembered<DecidedSession, LoadoutTool>,
    proxied: ProxiedTool,
    sequence: number | undefined,
  ): void {
    if (!memo) return;
    const { server } = proxied;
    const single = Boolean(remembered.session.single);
    const workspaces = lookupWorkspaces(remembered.session.session, remembered.session.single);
    const keep = (target: UpstreamTarget | null) => {
      const direct = (target && instanceDeps.pool?.directTool?.(target, proxied.tool.name)) ?? null;
      memo.keepTool(
        remembered,
        proxied.name,
        sequence,
        workspaces,
        upstreamTool(proxied, instanceDeps, { relayErrors: single, direct }),
        direct,
      );
    };
    if (!instanceDeps.pool || server.status === "failed") keep(null);
    else
      openedTarget(server, instanceDeps.box).then(keep, () => {
        // The call just failed to open it and said so: nothing is kept.
      });
  }

  return async function handleMcp({ c, io, target }: McpExchange): Promise<McpReply> {
    const deps = c.get("deps");
    const requestId = c.get("requestId");
    const now = c.get("now");
    const secret = bearerOf(c.req.header("authorization"));
    // Where no change feed runs, this request's view of the caches, current once it has polled.
    const polled = instanceDeps.polled;
    const serverDeps = polled ? { ...instanceDeps, hot: instanceDeps.hot.view(polled) } : instanceDeps;
    // The secret's hash, once: the cached principal, the poll and the memo are keyed by it.
    const bearerHash = secret && (polled || serverDeps.hot.live) ? bearerKey(secret) : undefined;
    const known = polled && bearerHash ? knownBearer(serverDeps.hot, bearerHash) : undefined;
    if (polled && known)
      await pollStamps(c.get("db"), polled, known.userId, known.workspaceIds, instanceDeps.changeFeed);
    // Taken before anything is read: a decision is kept only if nothing was heard of since.
    const sequence = serverDeps.hot.live?.sequence;
    const cacheKey = sequence !== undefined ? bearerHash : undefined;

    // Guards: the Host and Origin, then the token.
    const inputs = readSessionInputs(c, cacheKey ?? "");
    const origin = originOf(deps, inputs);
    const refused = refusedHost(deps, inputs, origin);
    if (refused) return rpcError(requestId, refused);
    if (!secret) return rpcError(requestId, missingToken(origin, target));

    // The session: the one decided before from the same inputs, while it holds, or decided now.
    const key = memo && cacheKey ? sessionKey(inputs) : null;
    let remembered = key && cacheKey ? memo?.find(key, cacheKey, now) : undefined;
    let decided: DecidedSession;
    // Whether nothing was decided for this request: its session and its tool were memoised.
    let warm = Boolean(remembered);
    if (remembered) {
      decided = remembered.session;
      c.set("principal", decided.session.principal);
    } else {
      const resolved: ResolvedBearer | AppError = await authenticate(
        c.get("db"),
        serverDeps.hot,
        secret,
        cacheKey,
        now,
        origin,
        inputs,
        target,
      );
      if (resolved instanceof AppError) return rpcError(requestId, resolved);
      // A principal read now: its counters are polled after it, so a change since makes it stale.
      if (polled && !known)
        await pollStamps(
          c.get("db"),
          polled,
          resolved.principal.userId,
          resolved.workspaces.map((w) => w.id),
          instanceDeps.changeFeed,
        );
      c.set("principal", resolved.principal);
      if (resolved.after) {
        const after = resolved.after;
        c.get("defer")(() => after(c.get("db")));
      }
      try {
        decided = await decideSession(c.get("db"), serverDeps, resolved, inputs, target);
      } catch (error) {
        if (error instanceof AppError) return rpcError(requestId, error);
        throw error;
      }
      if (key && cacheKey) remembered = memo?.keep(key, cacheKey, sequence, now, decided, resolved.principal);
    }
    const { single, endpoint } = decided;
    const principal = decided.session.principal;

    // A 2026-07-28 call names its tool in a header: an upstream tool's lookup starts while the body
    // arrives, and is used only if the body names the same tool (the plain path requires that anyway).
    const named =
      c.req.method === "POST" && c.req.header("mcp-method") === "tools/call"
        ? c.req.header("mcp-name")?.trim()
        : undefined;
    const early =
      named && (single || !BUILT_IN.includes(named)) && !(remembered && memo?.tool(remembered, named))
        ? { name: named, found: findProxiedTool(c.get("db"), serverDeps, decided.session, named, single ?? undefined) }
        : undefined;
    // Awaited below when the body agrees; a failure is then thrown there, not left unhandled here.
    if (early?.found instanceof Promise) early.found.catch(() => {});

    // The body.
    let body: unknown;
    if (c.req.method === "POST") {
      let bytes: Uint8Array;
      try {
        bytes = await io.read(MCP_BODY_LIMIT);
      } catch (error) {
        if (error instanceof AppError) return rpcError(requestId, error);
        throw error;
      }
      try {
        body = JSON.parse(utf8.decode(bytes));
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
    const rpc = body as { method?: unknown; params?: Record<string, unknown> } | undefined;
    const method = rpc?.method;
    const params = rpc?.params;
    const rpcMeta = params?._meta as Record<string, unknown> | undefined;
    const capabilities = rpcMeta?.["io.modelcontextprotocol/clientCapabilities"] as Record<string, unknown> | undefined;
    const ctx = callContext(c, principal);

    // A 2025-era client's answer to an input request Loadout sent it during a call: handed to the
    // call, which is waiting for it (see legacy-input.ts), and acknowledged as the SDK would.
    const sessionId = c.req.header("mcp-session-id");
    const answers = sessionId ? answersIn(body) : null;
    if (answers && sessionId) {
      const owner = ownerOf(sessionId, principal);
      await Promise.all(answers.map((answer) => pending.deliver(owner, answer)));
      return { status: 202, headers: {}, payload: "" };
    }
    // A 2025-era client's standalone stream (its GET with the session id Loadout gave it): its
    // lists' changes, from the feed a 2026-07-28 listen stream hears (see legacy-listen.ts).
    if (
      c.req.method === "GET" &&
      sessionId &&
      legacyListenable &&
      // Shutting down: no new stream (the SDK's clients stop asking on the 405 without one).
      !instanceDeps.closing?.aborted &&
      c.req.header("accept")?.includes("text/event-stream")
    ) {
      const legacy = sessions.decode(sessionId);
      if (legacy) {
        const scope = { userId: principal.userId, workspaceIds: decided.session.workspaces.map((w) => w.id) };
        const key = subscriptionKey(ownerOf(sessionId, principal));
        const polledFeed = feed
          ? null
          : await polledChanges((into) =>
              pollStamps(ctx.db, into, scope.userId, scope.workspaceIds, instanceDeps.changeFeed, [`sub:${key}`]),
            );
        const listenFeed = (feed ?? polledFeed?.feed) as Freshness;
        const updates = serverDeps.pool?.watchResource
          ? subscriptionUpdates(
              {
                db: ctx.db,
                session: decided.session,
                deps: serverDeps,
                single: decided.single,
                apps: Boolean(legacy.apps),
                now,
                onFailed: (error) =>
                  ctx.logger?.log("warn", "resource subscription failed", { requestId, error: describeError(error) }),
              },
              key,
              listenFeed,
              resourceUpdated,
            )
          : null;
        // A list change may be the token's own revocation: the credentials are read again first
        // (from the database where this request's caches would not have heard of it).
        const stillAllowed = async () => {
          try {
            await principalFromBearer(ctx.db, secret, new Date(), feed ? serverDeps.hot : null);
            return true;
          } catch (error) {
            if (error instanceof AppError && error.code !== "unavailable") return false;
            return true;
          }
        };
        // Its cursor: the counters its lists depend on, read from Postgres (one statement when it
        // opens and when a change is told), so that a reconnect on any instance compares alike.
        const counterKeys = stampKeys(scope.userId, scope.workspaceIds);
        const resumedFrom = c.req.header("last-event-id");
        return legacyListenStream(
          listChanges(listenFeed, scope, undefined, bothSources(updates, polledFeed?.source ?? null)),
          {
            stillAllowed,
            cursor: () => readCursor(ctx.db, counterKeys),
            ...(resumedFrom !== undefined ? { resumedFrom } : {}),
            primes: (legacy.protocolVersion ?? "") >= PRIMING_REVISION,
            ...(instanceDeps.closing ? { endWhen: instanceDeps.closing } : {}),
          },
        );
      }
    }
    // A 2025-era client's cancellation of a call: reaches the call wherever it runs, which gives
    // up on its upstream request (notifications/cancelled upstream on a 2025 session).
    if (sessionId && method === "notifications/cancelled" && !rpcMeta?.["io.modelcontextprotocol/protocolVersion"]) {
      const requestId = params?.requestId;
      if (typeof requestId === "string" || typeof requestId === "number")
        await pending.cancel(ownerOf(sessionId, principal), requestId);
      return { status: 202, headers: {}, payload: "" };
    }

    // The third source of a project: the client's MCP roots. A 2026-07-28 client that declares the
    // roots capability is asked for them (an input-required answer to its tools/call) when nothing
    // else named a project and the user has items scoped to projects; its retry carries them.
    let session = decided.session;
    let askRoots = false;
    if (
      decided.rootsMayName &&
      method === "tools/call" &&
      rpcMeta?.["io.modelcontextprotocol/protocolVersion"] &&
      capabilities?.roots
    ) {
      const fromRoots = projectFromRoots(params?.inputResponses);
      if (fromRoots !== undefined) session = { ...session, project: fromRoots };
      else
        askRoots = await hasProjectScopedItems(
          ctx.db,
          session.workspaces.map((w) => w.id),
          serverDeps.hot,
        );
    }
    // What this session memoises holds for it only as decided (a project from roots is this call's).
    const memoised = remembered && session === decided.session ? remembered : undefined;
    if (!memoised) warm = false;

    // The client: named per request on 2026-07-28; a 2025-era client in initialize only, and
    // afterwards by the session id Loadout gave it.
    const handshake =
      sessionId && !rpcMeta?.["io.modelcontextprotocol/protocolVersion"] ? sessions.decode(sessionId) : null;
    const client = clientOf(body) ?? (handshake ? { ...handshake, era: "legacy" as const } : null);
    const searchFetch =
      Boolean(endpoint?.searchFetch) ||
      CHATGPT.test(client?.name ?? "") ||
      CHATGPT.test(c.req.header("user-agent") ?? "");
    if (client) noteClient(c, ctx, client, session, endpoint?.id ?? null);
    const lane = deps.mcpFastLane !== false;
    // A 2025-era client's other notifications (`notifications/initialized`, the second request of
    // its handshake): acknowledged as the SDK's stateless transport acknowledges them, without
    // building its per-request server, which listens for none of them.
    if (lane && plainLegacyNotification(c.req.method, (name) => c.req.header(name), body)) {
      c.set("lane", "fast");
      return { status: 202, headers: {}, payload: "" };
    }
    // MCP Apps: negotiated per request on 2026-07-28, in initialize (and so in the session id) on 2025.
    const apps = client?.era === "modern" ? uiNegotiated(capabilities) : Boolean(client?.apps);
    // A view is served only to a client that negotiated Apps: any other read of one fails closed.
    if (method === "resources/read" && isViewUri(params?.uri) && !apps) {
      const id = (body as { id?: string | number }).id ?? null;
      return jsonReply(
        200,
        JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32602, message: viewRefusal(params.uri) } }),
      );
    }

    // A 2025-era client's resources/subscribe and unsubscribe: kept for its session, whose GET
    // stream carries the updates (see legacy-subscribe.ts).
    if (
      (method === "resources/subscribe" || method === "resources/unsubscribe") &&
      client?.era === "legacy" &&
      sessionId &&
      legacyListenable &&
      serverDeps.pool?.watchResource
    ) {
      const id = (body as { id?: string | number }).id ?? null;
      return legacySubscription(
        {
          db: ctx.db,
          session,
          deps: serverDeps,
          single,
          apps,
          now,
          onFailed: () => {},
        },
        subscriptionKey(ownerOf(sessionId, principal)),
        { id, method, uri: params?.uri },
      );
    }

    // A 2025-era client's logging/setLevel: kept for its session and applied to the upstream's log
    // messages on its calls (see log-gate.ts), whichever instance serves them.
    if (method === "logging/setLevel" && client?.era === "legacy" && sessionId) {
      const id = (body as { id?: string | number }).id ?? null;
      const level = params?.level;
      if (!isLogLevel(level))
        return jsonReply(
          200,
          JSON.stringify({
            jsonrpc: "2.0",
            id,
            error: { code: -32602, message: `params.level must be one of ${LOG_LEVELS.join(", ")}.` },
          }),
        );
      await keepSessionLevel(ctx.db, subscriptionKey(ownerOf(sessionId, principal)), principal.userId, level, now);
      return jsonReply(200, JSON.stringify({ jsonrpc: "2.0", id, result: {} }));
    }
    // The level a 2025 session set, read only when one of its calls hears a log message.
    const legacyLevel =
      client?.era === "legacy" && sessionId
        ? () => sessionLevel(ctx.db, subscriptionKey(ownerOf(sessionId, principal)))
        : undefined;

    // The registry's tools for this request: the built-ins this session is offered and, for a
    // listing, the upstream catalog; for a call, the one tool it names (an upstream's looked up, with
    // every check made again at dispatch); none for the extension's requests.
    const lazy = decided.lazy;
    const builtIns = single ? [] : sessionBuiltIns(session, { searchFetch, lazy }, serverDeps);
    let tools: LoadoutTool[] = builtIns;
    let catalog: ProxiedTool[] | undefined;
    let called: LoadoutTool | undefined;
    // Lazy mode lists no upstream tool: find_tools finds them.
    if (method === "tools/list" && !lazy) {
      catalog = await proxiedCatalog(
        ctx.db,
        session,
        serverDeps,
        deps.logger,
        now,
        single ?? undefined,
        c.get("defer"),
      );
    } else if (method === "tools/call" && typeof params?.name === "string") {
      const name = params.name;
      called = builtIns.find((t) => t.name === name);
      if (!called && (single || !BUILT_IN.includes(name))) {
        called = memoised ? memo?.tool(memoised, name)?.tool : undefined;
        if (!called) {
          warm = false;
          const found = await (early?.name === name
            ? early.found
            : findProxiedTool(ctx.db, serverDeps, session, name, single ?? undefined));
          if (found) {
            const proxied = presentFound(found, session, Boolean(single));
            called = upstreamTool(proxied, serverDeps, { relayErrors: Boolean(single) });
            if (memoised) keepTool(memoised, proxied, sequence);
          }
        }
      }
      tools = called ? [called] : [];
    } else if (typeof method === "string" && /^(skills\/|resources\/)/.test(method)) tools = [];

    let toolOutcome: ToolOutcome | undefined;
    // An upstream's input requests reach only a 2026-07-28 client that can answer them.
    const passInputRequests = client?.era === "modern" && canBeAsked(capabilities, Boolean(single));
    const started = performance.now();
    let response: McpReply | undefined;

    // A 2025-era client's call to an upstream tool can be cancelled by a later POST of its session.
    const rpcId = (body as { id?: unknown } | undefined)?.id;
    const cancellable =
      client?.era === "legacy" &&
      sessionId &&
      method === "tools/call" &&
      called?.proxied &&
      (typeof rpcId === "string" || typeof rpcId === "number")
        ? pending.cancellable(ownerOf(sessionId, principal), rpcId)
        : undefined;

    // A 2025-era client that declared what an upstream may ask of it (in its signed session id): an
    // upstream tool's call is answered on a stream that carries the upstream's requests to it.
    const askable =
      client?.era === "legacy" && sessionId && handshake?.capabilities
        ? askableFor(handshake.capabilities, Boolean(single))
        : undefined;
    if (method === "tools/call" && called?.proxied && askable && sessionId) {
      const tool = called;
      const id = (body as { id?: string | number }).id ?? null;
      const token = (params?._meta as { progressToken?: string | number } | undefined)?.progressToken;
      const args = params?.arguments as Record<string, unknown> | undefined;
      const signal = cancellable ? withCancel(io.signal(), cancellable) : io.signal();
      response = legacyCallStream(pending, ownerOf(sessionId, principal), signal, async (stream) => {
        try {
          const answer = await askedCall(
            tool,
            args,
            { ctx, session, origin, single: Boolean(single), ...(legacyLevel ? { level: legacyLevel } : {}) },
            stream,
            askable,
            token,
          );
          toolOutcome = answer.outcome;
          return answerMessage(id, answer.result);
        } catch (error) {
          // Loadout's own refusal after the stream began (the database went away): the call's
          // JSON-RPC error, as its last event.
          if (!(error instanceof AppError)) throw error;
          return JSON.stringify({ ...jsonRpcErrorBody(error, requestId), id });
        } finally {
          cancellable?.release();
        }
      });
    }

    // A plain call the pipeline answers itself. A 2025 client on a single-server URL hears the
    // upstream's log messages during a call, which only the SDK's stream carries (2026-07-28
    // clients ask for them in the envelope, which is not plain).
    const plain = lane && !askRoots ? plainCall(c.req.method, (name) => c.req.header(name), body) : null;
    const call = plain && !(plain.era === "legacy" && single) ? plain : null;
    if (!response && call && called?.name === call.name && answersItself(called, passInputRequests)) {
      const answer = await runPlain(call, called, ctx, session, origin, giveUpWith(io, cancellable));
      cancellable?.release();
      if (answer) {
        c.set("lane", warm ? "warm" : "fast");
        toolOutcome = answer.outcome;
        response = answer.reply;
      }
    }

    // A listing with upstream tools, answered before for this catalog (the cached array) and the
    // same built-ins: the SDK's answer again, with this request's id.
    const listing = lane && catalog?.length ? plainListing(c.req.method, (name) => c.req.header(name), body) : null;
    const listingKey = `${searchFetch}\u0000${apps}`;
    const rememberedListing = listing && catalog ? listingAnswers.get(catalog)?.get(listingKey) : undefined;
    if (listing && rememberedListing) {
      c.set("lane", warm ? "warm" : "fast");
      response = jsonReply(200, answerWithResult(listing.id, rememberedListing));
    }

    if (!response) {
      // The SDK's path: its per-request server with the same registry (see buildMcpServer), or for
      // a single-server URL the relay (see relay-server.ts).
      const report = (outcome: ToolOutcome) => {
        toolOutcome = outcome;
      };
      // Told on a 2026-07-28 listen stream, or a 2025 client's GET stream (see legacy-listen.ts).
      const listens = listenable && Boolean(rpcMeta?.["io.modelcontextprotocol/protocolVersion"]);
      const listChanged = listens || (legacyListenable && client?.era === "legacy");
      const singleRow = single ? await findSingleServer(ctx.db, serverDeps, single) : null;
      // A listing needs none; a call's log messages need logging declared.
      const declared =
        singleRow && method !== "tools/list"
          ? await upstreamCapabilities(ctx.db, session, serverDeps, singleRow, now)
          : {};
      // A 2025 client's are kept for its session and told on its GET stream (see legacy-subscribe.ts).
      const subscribes = listens || (legacyListenable && client?.era === "legacy");
      const resourceSubscriptions =
        subscribes &&
        Boolean(serverDeps.pool?.watchResource) &&
        (declared.resources as { subscribe?: unknown } | undefined)?.subscribe === true;
      const relay: RelayOptions | undefined = single
        ? {
            upstreamCapabilities: declared,
            tools: catalog ? catalog.map((t) => upstreamTool(t, serverDeps, { relayErrors: true })) : tools,
            askRoots,
            passInputRequests,
            listChanged,
            resourceSubscriptions,
            apps,
            ...(legacyLevel ? { legacyLevel } : {}),
            report,
            onInternal: (error) =>
              ctx.logger?.log("error", "relayed request failed", { requestId, error: describeError(error) }),
            call: (tool, args, extra) => {
              const upstream = cancellable ? { ...extra, signal: withCancel(extra.signal, cancellable) } : extra;
              return withRelease(
                tool.run({ ctx, session, origin, shared: false, upstream }, args),
                cancellable,
              ) as never;
            },
            relay: (relayed, relayParams, extra) => {
              if (!singleRow) throw new AppError("not_found", `Server "${single.slug}" was not found.`);
              return relayRequest(ctx.db, session, serverDeps, singleRow, relayed, relayParams, { now, ...extra });
            },
          }
        : undefined;
      // The instructions are only read by the handshake; other requests skip the catalog query.
      const instructions =
        (method === "initialize" || method === "server/discover") && !single
          ? instructionsBlock(
              [
                ...(await activeItems(ctx.db, session)).map((i) => ({
                  address: i.address,
                  kind: i.kind,
                  description: i.description,
                })),
                ...(await upstreamInstructionItems(ctx, session, serverDeps)),
              ],
              {
                mode: session.mode,
                lazyTools: lazy,
                leaveOut: await kindsFittedOut(ctx.db, {
                  userId: principal.userId,
                  clientName: client?.name,
                  device: c.req.header("x-loadout-device"),
                  now,
                }),
              },
            )
          : null;
      // At /mcp, the upstreams' resources, templates and prompts, for the requests that use them.
      const items =
        !single && typeof method === "string" && ITEM_METHODS.test(method)
          ? (await sessionItems(ctx.db, serverDeps, session)).filter((item) => apps || !isViewUri(item.row.key))
          : [];
      const per: PerRequest = {
        ...(relay ? { relay } : {}),
        ctx,
        session,
        options: {
          instructions,
          origin,
          tools,
          ...(catalog?.length ? { listing: catalog.flatMap((t) => listedFor(apps, t)) } : {}),
          extension: method !== "tools/call",
          apps,
          ...(items.length
            ? {
                upstreamItems: {
                  items,
                  relay: (item, relayed, relayParams, signal) =>
                    relayRequest(ctx.db, session, serverDeps, item.server, relayed, relayParams, { now, signal }),
                },
              }
            : {}),
          askRoots,
          passInputRequests,
          listChanged,
          onInternal: (error) =>
            ctx.logger?.log("error", "MCP request failed", { requestId, error: describeError(error) }),
          resourceSubscriptions: subscribes && Boolean(serverDeps.pool?.watchResource),
          report,
          ...(cancellable ? { giveUpWhen: (signal: AbortSignal) => withCancel(signal, cancellable) } : {}),
        },
      };
      // A listen stream is fed by this session's changes alone: a handler of its own, whose bus
      // is the change feed narrowed to the session's user and workspaces (see list-changes.ts).
      // Its resource subscriptions (a single-server URL's, or /mcp's namespaced ones): those the
      // session may read are watched upstream while the stream is open, and only those are
      // acknowledged.
      const listening = method === "subscriptions/listen" && listens;
      let served = body;
      let watches: ResourceWatches | null = null;
      const asked = listening ? askedSubscriptions(params) : null;
      if (asked) {
        const onFailed = (error: unknown) =>
          ctx.logger?.log("warn", "resource subscription failed", { requestId, error: describeError(error) });
        watches =
          singleRow && resourceSubscriptions
            ? await resourceWatches(ctx.db, session, serverDeps, singleRow, asked, now, onFailed)
            : !single && items.length
              ? await sessionResourceWatches(ctx.db, session, serverDeps, items, asked, now, onFailed)
              : null;
        served = withSubscriptions(body, watches?.uris ?? []);
      }
      const watched = watches;
      const scope = { userId: principal.userId, workspaceIds: session.workspaces.map((w) => w.id) };
      // The request's database lives as long as its stream (see the request scope's afterAnswer).
      const polledFeed =
        listening && !feed
          ? await polledChanges((into) =>
              pollStamps(ctx.db, into, scope.userId, scope.workspaceIds, instanceDeps.changeFeed),
            )
          : null;
      const listenFeed = feed ?? polledFeed?.feed;
      const serving =
        listening && listenFeed
          ? createMcpHandler(factory, {
              legacy: "reject",
              bus: listChanges(
                listenFeed,
                scope,
                undefined,
                bothSources(
                  watched?.uris.length
                    ? (publish) => watched.start((update) => publish(resourceUpdated(update)))
                    : null,
                  polledFeed?.source ?? null,
                ),
              ),
            })
          : handler;
      response = await serving.fetch(io.web(), {
        parsedBody: served,
        authInfo: {
          token: "loadout",
          clientId: principal.kind === "token" ? principal.tokenId : principal.userId,
          scopes: [...principal.scopes],
          extra: { loadout: per },
        },
      });
      if (listing && catalog && isWebReply(response) && response.status === 200)
        await rememberListing(response, catalog, listingKey);
    }
    if (method === "initialize" && client?.era === "legacy" && isWebReply(response) && response.status === 200)
      response = withSessionId(response, sessions.encode(client));
    logCall(c, ctx, body, response, {
      session,
      client,
      endpointId: endpoint?.id ?? null,
      server: called?.proxied?.server ?? null,
      outcome: () => toolOutcome,
      started,
    });
    return response;
  };
}

/**
 * Whether the pipeline may answer a call to this tool itself: not when an upstream could ask the
 * client for input (only the SDK's path carries input rounds) or its schema asks for arguments
 * mirrored in headers (the SDK checks those).
 */
function answersItself(tool: LoadoutTool, passInputRequests: boolean): boolean {
  if (!tool.proxied) return true;
  return !passInputRequests && !declaresMcpHeaders(tool.proxied);
}

/**
 * A plain call run and answered as the SDK's server would: null (before anything ran) when the
 * tool's schema refuses the arguments, so that the SDK's path writes that error in its own words.
 */
async function runPlain(
  call: PlainCall,
  tool: LoadoutTool,
  ctx: ActionContext,
  session: McpSession,
  origin: string,
  upstream: Omit<ProxiedCallOptions, "now">,
): Promise<{ reply: McpReply; outcome: ToolOutcome } | null> {
  const input = parsedInput(tool, call.args);
  if (!input) return null;
  // Loadout's own results may be shared between calls (see callSkillsTool); an upstream's is new each time.
  const shared = !tool.proxied;
  let result: ToolResult;
  try {
    result = (await tool.run({ ctx, session, origin, shared, upstream }, input.value)) as ToolResult;
  } catch (error) {
    // An upstream's own error, on a URL that relays it as such.
    if (error instanceof UpstreamRpcError) return { reply: rpcErrorReply(call, error), outcome: "tool_error" };
    result = errorResult(error, ctx);
  }
  return {
    reply: jsonReply(200, answerWithResult(call.id, resultJson(call, result, SERVER_INFO, shared))),
    outcome: outcomeOfToolResult(result),
  };
}

/** Who may answer a request Loadout sent during a call: the same session, with the same credentials. */
function ownerOf(sessionId: string, principal: Principal): string {
  const who =
    principal.kind === "token" ? principal.tokenId : principal.kind === "oauth" ? principal.grantId : principal.userId;
  return `${sessionId}\u0000${principal.kind}\u0000${who}`;
}

/**
 * What of a 2025 client's declared capabilities goes upstream: on a single-server URL all it
 * declared; on `/mcp`, elicitation and sampling (roots stay Loadout's own question there, as for
 * 2026-07-28 clients, see canBeAsked). Undefined when nothing is left to ask for.
 */
function askableFor(
  declared: Record<string, Record<string, unknown>>,
  single: boolean,
): Record<string, Record<string, unknown>> | undefined {
  const kept = Object.fromEntries(
    Object.entries(declared).filter(([name]) => single || name === "elicitation" || name === "sampling"),
  );
  return Object.keys(kept).length ? kept : undefined;
}

/** A JSON-RPC answer as a 2025 client reads it: a tool result, or an upstream's own error. */
function answerMessage(id: string | number | null, result: ToolResult | UpstreamRpcError): string {
  if (!(result instanceof UpstreamRpcError)) return answerWithResult(id ?? 0, legacyResultJson(result));
  const { code, message, data } = result;
  return JSON.stringify({ jsonrpc: "2.0", id, error: { code, message, ...(data !== undefined ? { data } : {}) } });
}

/**
 * An upstream tool's call for a 2025-era client that can be asked for input: each `input_required`
 * round's requests go to the client on the call's stream, and the call is retried upstream with its
 * answers, up to MAX_INPUT_ROUNDS. Progress and, on a single-server URL, the upstream's log
 * messages go on the same stream.
 */
async function askedCall(
  tool: LoadoutTool,
  args: Record<string, unknown> | undefined,
  run: {
    ctx: ActionContext;
    session: McpSession;
    origin: string;
    single: boolean;
    /** The level the session set (legacy-levels.ts), applied to the upstream's log messages. */
    level?: () => Promise<LogLevel | null>;
  },
  stream: LegacyStream,
  capabilities: Record<string, Record<string, unknown>>,
  progressToken: string | number | undefined,
): Promise<{ result: ToolResult | UpstreamRpcError; outcome: ToolOutcome }> {
  const { ctx } = run;
  // On a single-server URL the upstream's log messages go on the call's stream, at the session's level.
  const messages = run.single
    ? logGate(run.level ?? (async () => null), (n) => stream.notify({ method: n.method, params: n.params ?? {} }))
    : null;
  let rounds: { inputResponses?: Record<string, unknown>; requestState?: string } = {};
  for (let round = 0; ; round++) {
    let result: ToolResult & { resultType?: string; inputRequests?: Record<string, unknown>; requestState?: string };
    try {
      result = (await tool.run(
        {
          ctx,
          session: run.session,
          origin: run.origin,
          shared: false,
          upstream: {
            signal: stream.signal,
            clientCapabilities: capabilities,
            inputRequired: rounds,
            ...(messages
              ? {
                  logLevel: "debug",
                  onNotification: (n) => {
                    if (n.method === "notifications/message") messages.notify(n);
                  },
                }
              : {}),
            ...(progressToken !== undefined
              ? {
                  onProgress: (progress) =>
                    stream.notify({ method: "notifications/progress", params: { progressToken, ...progress } }),
                }
              : {}),
          },
        },
        args,
      )) as typeof result;
    } catch (error) {
      if (error instanceof UpstreamRpcError) {
        await messages?.settled();
        return { result: error, outcome: "tool_error" };
      }
      result = errorResult(error, ctx);
    }
    // The round's messages go before what follows it.
    await messages?.settled();
    if (result.resultType !== "input_required") {
      const { resultType: _, ...complete } = result;
      return { result: complete, outcome: outcomeOfToolResult(complete) };
    }
    if (round >= MAX_INPUT_ROUNDS) {
      const refused = failure(
        `${tool.name} asked for input more than ${MAX_INPUT_ROUNDS} times; the call was given up.`,
      );
      return { result: refused, outcome: "tool_error" };
    }
    const inputResponses: Record<string, unknown> = {};
    try {
      for (const [key, request] of Object.entries(result.inputRequests ?? {})) {
        const { method, params } = request as { method: string; params?: Record<string, unknown> };
        inputResponses[key] = await stream.ask(method, legacyRequestParams(method, params));
      }
    } catch (error) {
      const why =
        error instanceof ClientAnswerError ? `the client answered ${error.message}` : (error as Error).message;
      return { result: failure(`${tool.name} needed input the client did not give: ${why}`), outcome: "tool_error" };
    }
    rounds = { inputResponses, ...(result.requestState !== undefined ? { requestState: result.requestState } : {}) };
  }
}

/**
 * How a proxied call hears that its client left: the host's listener where it has one (the Node
 * adapter), else the request's signal.
 */
function giveUpWith(io: McpExchange["io"], cancellable?: Cancellable): Omit<ProxiedCallOptions, "now"> {
  if (io.whenGone)
    return {
      whenGone: (listener) => {
        io.whenGone?.(listener);
        cancellable?.onCancel(listener);
      },
    };
  return { signal: cancellable ? withCancel(io.signal(), cancellable) : io.signal() };
}

type Cancellable = ReturnType<PendingAnswers["cancellable"]>;

/** A signal that aborts when the client goes away or cancels the call. */
function withCancel(gone: AbortSignal, cancellable: Cancellable): AbortSignal {
  const cancelled = new AbortController();
  cancellable.onCancel(() => cancelled.abort(new Error("The client cancelled the call.")));
  return AbortSignal.any([gone, cancelled.signal]);
}

/** A call whose registration as cancellable ends with it. */
function withRelease<T>(call: Promise<T>, cancellable: Cancellable | undefined): Promise<T> {
  return cancellable ? call.finally(() => cancellable.release()) : call;
}

/** The SDK's answer to a 2025 initialize, with the session id that carries the handshake (see legacy-session.ts). */
function withSessionId(response: Response, id: string): Response {
  const headers = new Headers(response.headers);
  headers.set("mcp-session-id", id);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/**
 * tools/list answers (their results, serialized) by cached catalog: the catalog cache hands out
 * the same array until one of its workspaces' catalogs changes, so an answer lives exactly as long
 * as the listing it was made from. Keyed within by what else shapes the built-ins (search/fetch).
 */
const listingAnswers = new WeakMap<object, Map<string, string>>();

async function rememberListing(response: Response, catalog: ProxiedTool[], key: string): Promise<void> {
  if (!contentTypeOf(response).startsWith("application/json")) return;
  const answer = (await response.clone().json()) as { result?: unknown };
  if (!answer.result) return;
  const byBuiltIns = listingAnswers.get(catalog) ?? new Map<string, string>();
  byBuiltIns.set(key, JSON.stringify(answer.result));
  listingAnswers.set(catalog, byBuiltIns);
}

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

/** The actions' context for an MCP request; the logger takes what an error result may not say. */
function callContext(c: McpExchange["c"], principal: Principal): ActionContext {
  return { db: c.get("db"), principal, requestId: c.get("requestId"), now: c.get("now"), logger: c.get("deps").logger };
}

/** The resources a listen request names (`notifications.resourceSubscriptions`), or null when it names none. */
function askedSubscriptions(params: Record<string, unknown> | undefined): string[] | null {
  const asked = (params?.notifications as { resourceSubscriptions?: unknown } | undefined)?.resourceSubscriptions;
  if (!Array.isArray(asked)) return null;
  const uris = asked.filter((uri): uri is string => typeof uri === "string");
  return uris.length ? uris : null;
}

/** A listen request's body asking only for the subscriptions that will be held (none: the field goes). */
function withSubscriptions(body: unknown, uris: string[]): unknown {
  const message = body as { params: { notifications: Record<string, unknown> } };
  const { resourceSubscriptions: _, ...rest } = message.params.notifications;
  const notifications = uris.length ? { ...rest, resourceSubscriptions: uris } : rest;
  return { ...message, params: { ...message.params, notifications } };
}

/** An upstream's resource update as a stream event: its URI and params, without the upstream's own `_meta`. */
function resourceUpdated(update: Record<string, unknown>): ServerEvent {
  const { _meta: _, uri, ...params } = update;
  return { kind: "resource_updated", uri: String(uri), params };
}

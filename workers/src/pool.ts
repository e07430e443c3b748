import {
  type CallToolResult,
  Client,
  ProtocolError,
  SdkError,
  SdkErrorCode,
  SdkHttpError,
  SSEClientTransport,
  StreamableHTTPClientTransport,
} from "@modelcontextprotocol/client";
import {
  EXTENSION_ID as UI_EXTENSION,
  RESOURCE_MIME_TYPE as VIEW_MIME_TYPE,
} from "@modelcontextprotocol/ext-apps/server";
import { Cancellation } from "./cancellation";
import { type Answer, type AnswerBody, isEventStream, messageAnswer, readAnswer } from "./direct-answer";
import {
  errorResult,
  MAX_TOOLS_PER_SERVER,
  needsInput,
  UpstreamFailed,
  UpstreamRpcError,
  UpstreamUnauthorized,
  UpstreamUnavailable,
} from "./outcomes";
import { planAllows } from "./plan";

export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  outputSchema?: Record<string, unknown>;
  annotations?: Record<string, unknown>;
  /** The upstream's `_meta` of the tool (its MCP Apps view link is kept: see storeTools). */
  _meta?: Record<string, unknown>;
}

/** One remote server as the pool needs it. Its key is the id and generation together. */
export interface UpstreamTarget {
  id: string;
  /** Bumped when the URL, transport or headers change: a connection of an older generation is dropped. */
  generation: number;
  /** For messages: the server's slug. */
  name: string;
  url: string;
  transport: "streamable-http" | "sse";
  /** Opened header values (the caller unseals them), an OAuth connection's `Authorization` among them. */
  headers: Record<string, string>;
  callTimeoutMs: number;
  /**
   * Whose OAuth credentials the headers carry (a user's, or `shared` for the team's) and their
   * version: upstream sessions are kept per credential, so one user never rides another's session,
   * and a refreshed token opens a new one. Absent for servers without OAuth.
   */
  credential?: { owner: string; version: number };
}

export interface PoolOptions {
  /** The fetch that reaches a target: the SSRF-guarded one in production. */
  fetchFor(target: UpstreamTarget): typeof fetch;
  connectTimeoutMs?: number;
  /** Connections unused this long are closed. */
  idleMs?: number;
  /** At most this many open connections; the least recently used goes first. */
  maxConnections?: number;
  /** The upstream said its tools changed; here is its new list. */
  onToolsChanged?(target: UpstreamTarget, tools: UpstreamTool[]): void;
  /** The upstream said its prompts or its resources changed (the listener lists them again). */
  onItemsChanged?(target: UpstreamTarget): void;
  /**
   * A plain POST to a target, for warm calls sent without the SDK client (see `callDirect`);
   * SSRF-guarded like `fetchFor`. Default: through `fetchFor`'s fetch. Node passes undici's
   * `request`, which costs a fraction of fetch's CPU.
   */
  postFor?(target: UpstreamTarget): UpstreamPost;
}

/** One POST and its answer, read whole; `challenge` is a refusal's WWW-Authenticate header. */
export type UpstreamPost = (
  url: string,
  init: { headers: Readonly<Record<string, string>>; body: string; cancellation: Cancellation },
) => Promise<{ status: number; contentType: string; body: AnswerBody; challenge?: string }>;

/** A web stream's chunks (a reader loop: not every runtime's types make the stream iterable). */
async function* chunksOf(stream: ReadableStream<Uint8Array> | null): AsyncGenerator<Uint8Array> {
  if (!stream) return;
  const reader = stream.getReader();
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) yield next.value;
  } finally {
    reader.releaseLock();
  }
}

/** A POST through a fetch. */
export function postThrough(fetch: typeof globalThis.fetch): UpstreamPost {
  return async (url, init) => {
    const response = await fetch(url, {
      method: "POST",
      headers: init.headers,
      body: init.body,
      signal: init.cancellation.signal(),
    });
    const challenge = response.status >= 400 ? response.headers.get("www-authenticate") : null;
    return {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "",
      body: chunksOf(response.body),
      ...(challenge !== null ? { challenge } : {}),
    };
  };
}

/** A signal that aborts when `whenGone` calls its listener. */
function signalOf(whenGone: (listener: () => void) => void): AbortSignal {
  const controller = new AbortController();
  whenGone(() => controller.abort());
  return controller.signal;
}

export interface CallOptions {
  /** Aborts the call and tells the upstream (notifications/cancelled). */
  signal?: AbortSignal;
  /**
   * The same as `signal` for a host that can say so without one: it calls the listener when the
   * client goes away. An AbortSignal and its listener cost a warm call about 20 µs (cold code).
   */
  whenGone?(listener: () => void): void;
  /** Progress from the upstream, when the caller can pass it on. */
  onProgress?(progress: { progress: number; total?: number; message?: string }): void;
  /** The other notifications on the call's stream (log messages), when the caller can pass them on. */
  onNotification?(notification: RelatedNotification): void;
  /** The log level the client asked for: a 2026-07-28 upstream sends log messages only when given one. */
  logLevel?: string;
  /**
   * In plan and goal modes, the tool's plan-safe actions: the pool refuses any other call on its
   * own, whatever the layers before it decided. Null in agent mode.
   */
  planSafeActions: readonly string[] | null;
  /**
   * The caller speaks 2026-07-28 and can answer an upstream's input request (an elicitation, say):
   * an `input_required` result is then handed back as it is, and its retry carries these.
   */
  inputRequired?: {
    inputResponses?: Record<string, unknown>;
    requestState?: string;
  } | null;
  /**
   * The capabilities the client declared, sent upstream with a 2026-07-28 call so that the upstream
   * may ask for what the client can give (and refuses with -32021 what it cannot). Absent: none.
   */
  clientCapabilities?: Record<string, unknown>;
}

/** A refusal that UpstreamUnauthorized stands for, or null: any 401, and a 403 that names insufficient_scope. */
function authRefusal(status: number, challenge: string | null | undefined): 401 | 403 | null {
  if (status === 401) return 401;
  if (status === 403 && challenge && /error\s*=\s*"?insufficient_scope/i.test(challenge)) return 403;
  return null;
}

/** A notification the upstream sent on a request's stream (progress, a log message). */
export interface RelatedNotification {
  method: string;
  params?: Record<string, unknown>;
}

/** What a relayed request (any method but tools/call) carries besides its params. */
export interface RequestOptions {
  signal?: AbortSignal;
  whenGone?(listener: () => void): void;
  /** Hears the notifications the upstream sends on this request's stream, in order. */
  onNotification?(notification: RelatedNotification): void;
  /** The log level the client asked for (see CallOptions.logLevel). */
  logLevel?: string;
  /** See CallOptions.clientCapabilities. */
  clientCapabilities?: Record<string, unknown>;
}

interface Connection {
  client: Client;
  /** The last refusal's WWW-Authenticate header the SDK client's requests heard (see `open`). */
  challenge?: { status: number; header: string | null };
  era: string;
  lastUsed: number;
  /** The Streamable HTTP transport, whose session a direct call on a 2025 revision joins. */
  transport?: StreamableHTTPClientTransport;
  /** A stateless direct call's headers, by tool: the same for every call to it on this connection. */
  directHeaders?: Map<string, Readonly<Record<string, string>>>;
  /** The resources subscribed to upstream on this session, by URI (see watchResource). */
  watches?: Map<string, ResourceWatch>;
}

/** What hears an upstream's `notifications/resources/updated` for one URI: its params. */
export type ResourceUpdated = (params: Record<string, unknown>) => void;

/** One resource subscribed to upstream, shared by everyone who watches it on the session. */
interface ResourceWatch {
  listeners: Set<ResourceUpdated>;
  /** Settles once subscribed: how to unsubscribe. */
  started: Promise<() => Promise<void>>;
}

/** A watch whose listen stream (2026-07-28) ended unasked is opened again after this long. */
const RELISTEN_MS = 1_000;

/**
 * How a direct call reaches the upstream: stateless on 2026-07-28 (the envelope in `_meta`), or
 * inside the SDK client's 2025 session (its id and negotiated revision in headers).
 */
type DirectRoute = { kind: "stateless" } | { kind: "session"; version: string; sessionId: string | undefined };

const STATELESS: DirectRoute = { kind: "stateless" };

/** A tool name a direct call may carry in its Mcp-Name header as it is (printable ASCII). */
const DIRECT_NAME = /^[\x21-\x7e]+$/;

/**
 * A direct call to one tool, prepared by the pool (UpstreamPool.directTool): the same call as
 * callTool's, with the plan check, for a caller that keeps it across calls.
 */
export interface DirectTool {
  /** False once the pool has dropped or replaced the connection it was made for: make another. */
  readonly current: boolean;
  call(
    args: Record<string, unknown> | undefined,
    options: Pick<CallOptions, "signal" | "whenGone" | "planSafeActions">,
  ): Promise<CallToolResult>;
}

/** The pool's own plan check (see CallOptions.planSafeActions): its refusal, or null. */
function planRefusal(
  target: UpstreamTarget,
  planSafeActions: readonly string[] | null,
  args: Record<string, unknown> | undefined,
): CallToolResult | null {
  if (planSafeActions === null || planAllows(planSafeActions, args)) return null;
  return errorResult(
    `Loadout refused this call: in plan mode ${target.name} may only run ${
      planSafeActions.length ? `action ${planSafeActions.join(", ")}` : "nothing"
    }. Switch to agent mode to make changes.`,
  );
}

/** What every direct call's POST says of its body and the answers it takes. */
const POST_HEADERS = { "content-type": "application/json", accept: "application/json, text/event-stream" };

/**
 * A stateless direct call's headers, made once per connection and tool: the target's own (its
 * secrets), then the transport's. The POST only reads them.
 */
function statelessHeaders(
  connection: Connection,
  target: UpstreamTarget,
  tool: string,
): Readonly<Record<string, string>> {
  connection.directHeaders ??= new Map();
  let headers = connection.directHeaders.get(tool);
  if (!headers) {
    headers = Object.freeze({
      ...target.headers,
      ...POST_HEADERS,
      "mcp-protocol-version": DIRECT_REVISION,
      "mcp-method": "tools/call",
      "mcp-name": tool,
    });
    // Tools are few per server (at most 64 are offered); a caller naming many more starts it again.
    if (connection.directHeaders.size >= 256) connection.directHeaders.clear();
    connection.directHeaders.set(tool, headers);
  }
  return headers;
}

/** The SDK client's own answer to a request it has no handler for (an elicitation on a 2025 session). */
const METHOD_NOT_FOUND = { code: -32601, message: "Method not found" };

/** The route a connection offers direct calls, or null where only the SDK client can call (HTTP+SSE). */
function directRoute(connection: Connection): DirectRoute | null {
  if (connection.era === "modern") return STATELESS;
  const version = connection.transport?.protocolVersion;
  if (connection.era !== "legacy" || !version) return null;
  return { kind: "session", version, sessionId: connection.transport?.sessionId };
}

const UNSURE = "It was sent once and not retried; it may have taken effect, so check before calling it again.";

/**
 * Why a request that was sent got no answer, as the agent reads it: one table for the SDK client's
 * path and the direct one, so both say the same.
 */
const FAILED = {
  cancelled: (_target: Pick<UpstreamTarget, "name">, what: string) => `The call to ${what} was cancelled.`,
  timeout: (target: Pick<UpstreamTarget, "name" | "callTimeoutMs">, what: string) =>
    `${target.name} did not answer ${what} within ${Math.round(target.callTimeoutMs / 1000)} s.`,
  garbled: (target: Pick<UpstreamTarget, "name">, what: string) =>
    `${target.name} answered ${what} with something that is not an MCP result.`,
  broken: (target: Pick<UpstreamTarget, "name">, what: string, why: string) =>
    `The connection to ${target.name} broke during ${what} (${why}).`,
};

/**
 * The envelope of a stateless direct call: the SDK client's, but declaring no capabilities. A
 * direct call never carries an upstream's input request back to the client (callTool sends those
 * calls through the SDK client), and a server may only ask for input a client declared it can give
 * (2026-07-28, "input_required"): an upstream told so can do without, rather than ask and fail.
 * Declaring it also cost the upstream's validation about 0.1 ms per call here.
 */
const DIRECT_REVISION = "2026-07-28";
const DIRECT_ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": DIRECT_REVISION,
  "io.modelcontextprotocol/clientInfo": { name: "loadout", version: "0.1.0" },
  "io.modelcontextprotocol/clientCapabilities": {},
};
const DIRECT_ENVELOPE_JSON = JSON.stringify(DIRECT_ENVELOPE);

/**
 * A stateless direct call's body: what JSON.stringify makes of `{ jsonrpc, id, method, params:
 * { name, arguments, _meta } }`, with the envelope encoded once rather than on every call.
 */
export function statelessCallBody(id: string, tool: string, args: Record<string, unknown> | undefined): string {
  const named = `"name":${JSON.stringify(tool)}`;
  const given = args ? `,"arguments":${JSON.stringify(args)}` : "";
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"method":"tools/call","params":{${named}${given},"_meta":${DIRECT_ENVELOPE_JSON}}}`;
}

/** The token a direct call asks the upstream's progress under: one hop, one call, so one token. */
const PROGRESS_TOKEN = "loadout-progress";

/** What a request's Mcp-Name header carries (2026-07-28): the tool's or prompt's name, the resource's URI. */
function nameOf(method: string, params: Record<string, unknown> | undefined): string | undefined {
  const value =
    method === "resources/read" ? params?.uri : /^(tools\/call|prompts\/get)$/.test(method) ? params?.name : undefined;
  return typeof value === "string" ? value : undefined;
}

/** A header value as 2026-07-28 sends it: as it is when plain printable ASCII, else base64 in the sentinel. */
function headerValue(value: string): string {
  if (DIRECT_NAME.test(value) && !value.startsWith("=?")) return value;
  const bytes = new TextEncoder().encode(value);
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `=?base64?${btoa(binary)}?=`;
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 300);

const withTimeout = async <T>(work: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
};

/**
 * Connections to users' upstream MCP servers, reused across calls so that a warm call costs one
 * upstream round trip. Runtime-agnostic: the caller passes the fetch and the opened secrets.
 *
 * A call is sent once. A timeout, an interrupted connection or an unreadable answer becomes an
 * error result telling the agent to verify the outcome before retrying; nothing is retried here.
 */
export class UpstreamPool {
  private readonly connections = new Map<string, Promise<Connection>>();
  /** Each opened connection by its promise: a warm call takes it without awaiting. */
  private readonly opened = new WeakMap<Promise<Connection>, Connection>();
  private readonly options: Required<Omit<PoolOptions, "onToolsChanged" | "onItemsChanged" | "postFor">> &
    Pick<PoolOptions, "onToolsChanged" | "onItemsChanged" | "postFor">;
  private directIds = 0;
  private sweeper: ReturnType<typeof setInterval> | undefined;

  constructor(options: PoolOptions) {
    this.options = { connectTimeoutMs: 10_000, idleMs: 5 * 60_000, maxConnections: 256, ...options };
  }

  /** Server id, generation, and whose credentials at which version: one upstream session each. */
  private key(target: UpstreamTarget) {
    const credential = target.credential;
    return credential
      ? `${target.id}#${target.generation}#${credential.owner}#${credential.version}`
      : `${target.id}#${target.generation}`;
  }

  /** Opens (or reuses) the connection to a target. Throws UpstreamUnavailable when it cannot. */
  private connection(target: UpstreamTarget): Promise<Connection> {
    const key = this.key(target);
    const existing = this.connections.get(key);
    if (existing) return existing;
    // An older generation of this server is what it used to be, and an older version of the same
    // owner's credentials a token since replaced: their connections go. Other owners' stay.
    const generation = `${target.id}#${target.generation}`;
    const owner = target.credential ? `${generation}#${target.credential.owner}#` : null;
    for (const other of [...this.connections.keys()])
      if (
        other.startsWith(`${target.id}#`) &&
        ((other !== generation && !other.startsWith(`${generation}#`)) || (owner !== null && other.startsWith(owner)))
      )
        this.dropKey(other);
    let heard: Connection["challenge"];
    const opening: Promise<Connection> = this.open(target, (challenge) => {
      heard = challenge;
    }).then(
      (connection) => {
        this.opened.set(opening, connection);
        return connection;
      },
      (error: unknown) => {
        this.connections.delete(key);
        if (error instanceof UpstreamUnavailable) throw error;
        const status = error instanceof SdkHttpError ? error.status : heard?.status;
        const refusal = status === undefined ? null : authRefusal(status, heard?.header);
        if (refusal) throw new UpstreamUnauthorized(describeConnectError(error), refusal, heard?.header ?? null);
        throw new UpstreamUnavailable(describeConnectError(error));
      },
    );
    this.connections.set(key, opening);
    this.evict();
    this.sweeper ??= setInterval(() => this.sweep(), Math.min(this.options.idleMs, 60_000));
    (this.sweeper as { unref?: () => void }).unref?.();
    return opening;
  }

  private async open(
    target: UpstreamTarget,
    onRefused: (challenge: NonNullable<Connection["challenge"]>) => void,
  ): Promise<Connection> {
    const url = new URL(target.url);
    const base = this.options.fetchFor(target);
    // The SDK client's errors carry a refusal's status but not its challenge: kept on the side.
    let connection: Connection | undefined;
    const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
      const response = await base(input, init);
      if (response.status === 401 || response.status === 403) {
        const challenge = { status: response.status, header: response.headers.get("www-authenticate") };
        onRefused(challenge);
        if (connection) connection.challenge = challenge;
      }
      return response;
    }) as typeof globalThis.fetch;
    const made = await this.openWith(target, url, fetch);
    connection = made;
    return made;
  }

  private async openWith(target: UpstreamTarget, url: URL, fetch: typeof globalThis.fetch): Promise<Connection> {
    const requestInit = { headers: target.headers };
    const makeClient = () =>
      new Client(
        { name: "loadout", version: "0.1.0" },
        {
          versionNegotiation: { mode: "auto" },
          // Input an upstream asks for comes from the agent's own client, passed through; the
          // proxy has nobody to ask itself.
          inputRequired: { autoFulfill: false },
          // Declared so that an upstream may ask (a confirmation, a URL to open); the request
          // reaches the agent's client when its revision can carry it, else the call says why not.
          // MCP Apps too, so that an upstream lists its tools' views: Loadout passes them to the
          // clients that negotiate Apps and leaves them out for the others.
          capabilities: {
            elicitation: { form: {}, url: {} },
            extensions: { [UI_EXTENSION]: { mimeTypes: [VIEW_MIME_TYPE] } },
          },
          listChanged: {
            tools: {
              onChanged: (error, tools) => {
                if (!error && tools) this.options.onToolsChanged?.(target, capped(tools as UpstreamTool[]).tools);
              },
            },
            // Resources and templates are listed together with prompts by the listener, capped
            // and within its budget, so the SDK's own refetch is not wanted.
            prompts: { autoRefresh: false, onChanged: () => this.options.onItemsChanged?.(target) },
            resources: { autoRefresh: false, onChanged: () => this.options.onItemsChanged?.(target) },
          },
        },
      );
    const timeout = this.options.connectTimeoutMs;
    if (target.transport === "sse") {
      const client = makeClient();
      await withTimeout(client.connect(new SSEClientTransport(url, { requestInit, fetch })), timeout, "connecting");
      return { client, era: "legacy-sse", lastUsed: Date.now() };
    }
    const client = makeClient();
    try {
      const transport = new StreamableHTTPClientTransport(url, { requestInit, fetch });
      await withTimeout(client.connect(transport), timeout, "connecting");
      return { client, era: client.getProtocolEra?.() ?? "legacy", lastUsed: Date.now(), transport };
    } catch (error) {
      await client.close().catch(() => {});
      // A server that answers POST with 400/404/405 may be one of the legacy HTTP+SSE servers.
      if (!(error instanceof SdkHttpError) || ![400, 404, 405].includes(error.status)) throw error;
      const legacy = makeClient();
      try {
        await withTimeout(legacy.connect(new SSEClientTransport(url, { requestInit, fetch })), timeout, "connecting");
      } catch {
        throw error;
      }
      return { client: legacy, era: "legacy-sse", lastUsed: Date.now() };
    }
  }

  private dropKey(key: string) {
    const connection = this.connections.get(key);
    this.connections.delete(key);
    connection?.then((c) => c.client.close()).catch(() => {});
  }

  /**
   * Closes a server's connections (it was removed or changed what it is), or only those on one
   * owner's credentials (they were disconnected or refused).
   */
  drop(serverId: string, owner?: string) {
    for (const key of [...this.connections.keys()])
      if (key.startsWith(`${serverId}#`) && (owner === undefined || key.split("#")[2] === owner)) this.dropKey(key);
  }

  private evict() {
    while (this.connections.size > this.options.maxConnections) {
      const oldest = this.connections.keys().next().value;
      if (oldest === undefined) break;
      this.dropKey(oldest);
    }
  }

  private sweep() {
    const now = Date.now();
    for (const [key, opening] of this.connections)
      opening
        .then((c) => {
          // A connection with resources watched on it is in use while they are.
          if (c.watches?.size) return;
          if (now - c.lastUsed > this.options.idleMs && this.connections.get(key) === opening) this.dropKey(key);
        })
        .catch(() => {});
  }

  /** Marks a connection used, moving it to the back of the eviction order. */
  private touch(key: string, connection: Connection) {
    connection.lastUsed = Date.now();
    const opening = this.connections.get(key);
    if (opening) {
      this.connections.delete(key);
      this.connections.set(key, opening);
    }
  }

  /** Who hears that an upstream's tools changed (set once by the app that stores them). */
  setToolsChangedHandler(handler: NonNullable<PoolOptions["onToolsChanged"]>) {
    this.options.onToolsChanged = handler;
  }

  /** Who hears that an upstream's prompts or resources changed (set once by the app that stores them). */
  setItemsChangedHandler(handler: NonNullable<PoolOptions["onItemsChanged"]>) {
    this.options.onItemsChanged = handler;
  }

  get size() {
    return this.connections.size;
  }

  /**
   * Lists a server's tools (at most 64). Throws UpstreamUnavailable when it cannot be reached.
   * `fresh` (Test) first closes the sessions on the target's credentials, so a new handshake is made.
   */
  async listTools(
    target: UpstreamTarget,
    options: { fresh?: boolean } = {},
  ): Promise<{ tools: UpstreamTool[]; truncated: boolean; era: string }> {
    if (options.fresh) this.drop(target.id, target.credential?.owner);
    const connection = await this.connection(target);
    this.touch(this.key(target), connection);
    const all: UpstreamTool[] = [];
    try {
      let cursor: string | undefined;
      do {
        const page = await connection.client.listTools(cursor ? { cursor } : {}, {
          timeout: this.options.connectTimeoutMs,
        });
        all.push(...(page.tools as UpstreamTool[]));
        cursor = page.nextCursor;
      } while (cursor && all.length <= MAX_TOOLS_PER_SERVER);
    } catch (error) {
      this.drop(target.id, target.credential?.owner);
      const refusal = error instanceof SdkHttpError ? authRefusal(error.status, connection.challenge?.header) : null;
      if (refusal)
        throw new UpstreamUnauthorized(
          `listing tools was refused (HTTP ${refusal})`,
          refusal,
          connection.challenge?.header ?? null,
        );
      throw new UpstreamUnavailable(`listing tools failed: ${messageOf(error)}`);
    }
    return { ...capped(all), era: connection.era };
  }

  /**
   * A warm call to one tool of a target, prepared: the connection and its route looked up once,
   * for a caller that keeps it (see DirectTool). Null unless the connection is open and its calls
   * are single POSTs (stateless 2026-07-28, or a 2025 session over streamable HTTP); callTool
   * serves the others. A session the upstream ended is dropped by the call that hears so, and the
   * tool is then no longer current.
   */
  directTool(target: UpstreamTarget, tool: string): DirectTool | null {
    const key = this.key(target);
    const opening = this.connections.get(key);
    const connection = opening && this.opened.get(opening);
    const route = connection && directRoute(connection);
    if (!opening || !connection || !route || !DIRECT_NAME.test(tool)) return null;
    const connections = this.connections;
    return {
      get current() {
        return connections.get(key) === opening;
      },
      call: (args, options) => {
        const refused = planRefusal(target, options.planSafeActions, args);
        if (refused) return Promise.resolve(refused);
        this.touch(key, connection);
        return this.callDirect(connection, target, tool, args, options, route);
      },
    };
  }

  /**
   * Calls a tool once. Answers an error result (never throws) for everything the agent should
   * hear about; throws UpstreamUnavailable only when no call was sent because the server could not
   * be reached, so the caller can record that.
   */
  async callTool(
    target: UpstreamTarget,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<CallToolResult> {
    // The proxy's own plan check: the third layer, independent of the catalog and dispatch.
    const refused = planRefusal(target, options.planSafeActions, args);
    if (refused) return refused;
    const opening = this.connection(target);
    const connection = this.opened.get(opening) ?? (await opening);
    this.touch(this.key(target), connection);
    const route = directRoute(connection);
    // Input rounds with a 2025 session go through the SDK client, which turns the upstream's
    // requests on the stream into input_required results; on 2026-07-28 they are plain results.
    if (route && DIRECT_NAME.test(tool) && (!options.inputRequired || route.kind === "stateless"))
      return this.callDirect(connection, target, tool, args, options, route);
    const signal = options.signal ?? (options.whenGone ? signalOf(options.whenGone) : undefined);
    try {
      const rounds = options.inputRequired;
      const result = await connection.client.callTool(
        {
          name: tool,
          ...(args ? { arguments: args } : {}),
          ...(rounds?.inputResponses ? { inputResponses: rounds.inputResponses } : {}),
          ...(rounds?.requestState !== undefined ? { requestState: rounds.requestState } : {}),
        } as Parameters<Client["callTool"]>[0],
        {
          timeout: target.callTimeoutMs,
          maxTotalTimeout: target.callTimeoutMs,
          ...(rounds ? { allowInputRequired: true } : {}),
          ...(signal ? { signal } : {}),
          ...(options.onProgress ? { onprogress: options.onProgress } : {}),
        },
      );
      return result as CallToolResult;
    } catch (error) {
      // The server answered: a JSON-RPC error is its definite answer, and the connection is fine.
      if (error instanceof ProtocolError) throw new UpstreamRpcError(error.code, messageOf(error), error.data);
      if (
        error instanceof SdkError &&
        (error.code === SdkErrorCode.UnsupportedResultType || error.code === SdkErrorCode.InputRequiredRoundsExceeded)
      )
        return needsInput(target, tool);
      const refusal = error instanceof SdkHttpError ? authRefusal(error.status, connection.challenge?.header) : null;
      if (refusal)
        throw new UpstreamUnauthorized(
          `${target.name} refused the credentials (HTTP ${refusal})`,
          refusal,
          connection.challenge?.header ?? null,
        );
      this.drop(target.id, target.credential?.owner);
      if (signal?.aborted) return errorResult(`${FAILED.cancelled(target, tool)} ${UNSURE}`);
      if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout)
        return errorResult(`${FAILED.timeout(target, tool)} ${UNSURE}`);
      if (
        (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) ||
        (error instanceof Error && (error.name === "SyntaxError" || error.name === "ZodError"))
      )
        return errorResult(`${FAILED.garbled(target, tool)} ${UNSURE}`);
      return errorResult(`${FAILED.broken(target, tool, messageOf(error))} ${UNSURE}`);
    }
  }

  /**
   * Relays one request of any method but tools/call (resources, prompts, completions, pings) to
   * the upstream, once, and returns its result. An upstream's JSON-RPC error is thrown as
   * UpstreamRpcError, to be relayed as the same error; UpstreamUnavailable when nothing was sent;
   * UpstreamFailed when no answer came back. Notifications on the request's stream (progress, log
   * messages) reach `onNotification`.
   */
  async request(
    target: UpstreamTarget,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions = {},
  ): Promise<Record<string, unknown>> {
    const opening = this.connection(target);
    const connection = this.opened.get(opening) ?? (await opening);
    this.touch(this.key(target), connection);
    const route = directRoute(connection);
    if (!route) return this.requestThroughClient(connection, target, method, params, options);
    const answer = await this.exchange(connection, target, method, params, options, route);
    if ("error" in answer) {
      const { code, message, data } = answer.error as { code: unknown; message: unknown; data?: unknown };
      throw new UpstreamRpcError(typeof code === "number" ? code : -32603, String(message).slice(0, 1000), data);
    }
    // An input_required result goes back as it is; a complete one as any revision reads it.
    if (answer.result.resultType === "input_required") return answer.result;
    const { resultType: _, ...result } = answer.result;
    return result;
  }

  /**
   * Subscribes to one resource of a target, for `onUpdated` (the upstream's
   * `notifications/resources/updated` params for that URI), and returns how to stop. The upstream
   * is subscribed once per session however many watch the URI: with `resources/subscribe` on a
   * 2025 session (updates arrive on its GET stream), with a `subscriptions/listen` stream on
   * 2026-07-28 (opened again if it ends unasked). The last to stop unsubscribes. Throws
   * UpstreamRpcError when the upstream refuses, UpstreamUnavailable when it cannot be reached.
   */
  async watchResource(target: UpstreamTarget, uri: string, onUpdated: ResourceUpdated): Promise<() => void> {
    const opening = this.connection(target);
    const connection = this.opened.get(opening) ?? (await opening);
    this.touch(this.key(target), connection);
    let watches = connection.watches;
    if (!watches) {
      const heard = new Map<string, ResourceWatch>();
      watches = heard;
      connection.watches = heard;
      connection.client.setNotificationHandler("notifications/resources/updated", (notification) => {
        const params = notification.params as Record<string, unknown>;
        for (const listener of heard.get(String(params.uri))?.listeners ?? []) {
          try {
            listener(params);
          } catch {
            // One listener's failure is its own; the others still hear.
          }
        }
      });
    }
    const all = watches;
    let watch = all.get(uri);
    if (!watch) {
      const made: ResourceWatch = { listeners: new Set(), started: this.subscribe(connection, uri, () => made) };
      watch = made;
      all.set(uri, made);
      made.started.catch(() => {
        if (all.get(uri) === made) all.delete(uri);
      });
    }
    const current = watch;
    current.listeners.add(onUpdated);
    try {
      await current.started;
    } catch (error) {
      current.listeners.delete(onUpdated);
      if (error instanceof ProtocolError) throw new UpstreamRpcError(error.code, messageOf(error), error.data);
      throw new UpstreamUnavailable(`${target.name} could not subscribe to ${uri.slice(0, 200)}: ${messageOf(error)}`);
    }
    return () => {
      if (!current.listeners.delete(onUpdated) || current.listeners.size || all.get(uri) !== current) return;
      all.delete(uri);
      current.started.then((stop) => stop()).catch(() => {});
    };
  }

  /** Subscribes a session to one URI upstream, in its era; settles with how to unsubscribe. */
  private async subscribe(
    connection: Connection,
    uri: string,
    watch: () => ResourceWatch,
  ): Promise<() => Promise<void>> {
    const client = connection.client;
    if (connection.era !== "modern") {
      await client.subscribeResource({ uri });
      return async () => {
        await client.unsubscribeResource({ uri }).catch(() => {});
      };
    }
    let stopped = false;
    let subscription = await client.listen({ resourceSubscriptions: [uri] });
    const keep = (opened: typeof subscription) => {
      void opened.closed.then(async (how) => {
        if (how !== "remote" || stopped || !watch().listeners.size || connection.watches?.get(uri) !== watch()) return;
        await new Promise((r) => setTimeout(r, RELISTEN_MS));
        if (stopped) return;
        try {
          subscription = await client.listen({ resourceSubscriptions: [uri] });
          keep(subscription);
        } catch {
          // The upstream is gone or refuses now: its connection's next use says so.
        }
      });
    };
    keep(subscription);
    return async () => {
      stopped = true;
      await subscription.close().catch(() => {});
    };
  }

  /** The upstream's capabilities, as it declared them in its handshake (connecting if need be). */
  async capabilities(target: UpstreamTarget): Promise<Record<string, unknown>> {
    const opening = this.connection(target);
    const connection = this.opened.get(opening) ?? (await opening);
    return (connection.client.getServerCapabilities() ?? {}) as Record<string, unknown>;
  }

  /** A request on a legacy HTTP+SSE connection, where only the SDK client can send it. */
  private async requestThroughClient(
    connection: Connection,
    target: UpstreamTarget,
    method: string,
    params: Record<string, unknown> | undefined,
    options: RequestOptions,
  ): Promise<Record<string, unknown>> {
    const signal = options.signal ?? (options.whenGone ? signalOf(options.whenGone) : undefined);
    try {
      // Any method: the client validates the result of the spec's own by its method.
      const request = { method: method as "ping", ...(params ? { params } : {}) };
      return (await connection.client.request(request, {
        timeout: target.callTimeoutMs,
        ...(signal ? { signal } : {}),
      })) as Record<string, unknown>;
    } catch (error) {
      if (error instanceof ProtocolError) throw new UpstreamRpcError(error.code, messageOf(error), error.data);
      this.drop(target.id, target.credential?.owner);
      throw new UpstreamFailed(FAILED.broken(target, method, messageOf(error)));
    }
  }

  /**
   * A call sent as one POST without the SDK client, whose per-call machinery (a web-streams fetch,
   * schema validation of the answer) costs more CPU than the proxy's whole budget: stateless on
   * 2026-07-28, or inside the client's session on a 2025 revision. Measured 2026-12-03 (Node 20,
   * server-everything's echo on a 2025 session, 20 clients for 8 s, twice each, the machine busy
   * with a CI run): 1.13–1.21 ms of gateway CPU per call and 198–201 calls/s this way, against
   * 3.94–4.88 ms and 78–106 calls/s through `client.callTool`. It stays a second path for that. What the upstream answers is
   * read as the SDK client reads it, and every failure becomes the same error result as on its path.
   */
  private async callDirect(
    connection: Connection,
    target: UpstreamTarget,
    tool: string,
    args: Record<string, unknown> | undefined,
    options: Pick<
      CallOptions,
      "signal" | "whenGone" | "onProgress" | "onNotification" | "logLevel" | "inputRequired" | "clientCapabilities"
    >,
    route: DirectRoute,
  ): Promise<CallToolResult> {
    const params: Record<string, unknown> = { name: tool };
    if (args) params.arguments = args;
    const rounds = options.inputRequired;
    if (rounds?.inputResponses) params.inputResponses = rounds.inputResponses;
    if (rounds?.requestState !== undefined) params.requestState = rounds.requestState;
    const { onProgress, onNotification } = options;
    let answer: Answer;
    try {
      answer = await this.exchange(
        connection,
        target,
        "tools/call",
        params,
        {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.whenGone ? { whenGone: options.whenGone } : {}),
          ...(options.logLevel ? { logLevel: options.logLevel } : {}),
          ...(options.clientCapabilities ? { clientCapabilities: options.clientCapabilities } : {}),
          ...(onProgress || onNotification
            ? {
                onNotification: (n: RelatedNotification) => {
                  if (n.method !== "notifications/progress") return onNotification?.(n);
                  if (!n.params || !onProgress) return;
                  // The upstream echoes the token this hop sent; the client's own goes on its hop.
                  const { progressToken: _, ...progress } = n.params;
                  onProgress(progress as { progress: number; total?: number; message?: string });
                },
              }
            : {}),
        },
        route,
        onProgress ? PROGRESS_TOKEN : undefined,
      );
    } catch (error) {
      if (error instanceof UpstreamFailed) return errorResult(`${error.message} ${UNSURE}`);
      throw error;
    }
    if ("error" in answer) {
      const { code, message: text, data } = answer.error as { code: unknown; message: unknown; data?: unknown };
      // -32021 (a client capability missing, so nothing ran) is relayed like any error: the caller
      // that could not forward the client's capabilities reads it as "needs input" (see proxied.ts).
      throw new UpstreamRpcError(typeof code === "number" ? code : -32603, String(text).slice(0, 1000), data);
    }
    const result = answer.result;
    // The upstream asks the client for input: handed back as it is to a caller that can carry it.
    if (result.resultType === "input_required") return rounds ? (result as CallToolResult) : needsInput(target, tool);
    if (
      (result.resultType !== undefined && result.resultType !== "complete") ||
      (result.content !== undefined && !Array.isArray(result.content))
    ) {
      this.drop(target.id, target.credential?.owner);
      return errorResult(`${FAILED.garbled(target, tool)} ${UNSURE}`);
    }
    // One copy: without resultType, with content always there.
    const { resultType: _, ...rest } = result;
    rest.content ??= [];
    return rest as CallToolResult;
  }

  /**
   * One request as one POST, and its answer (a result or a JSON-RPC error): the upstream hop of
   * every direct call and relayed request. On a 2025 session the server may send requests on the
   * stream (an elicitation): each is answered "Method not found", as the SDK client answers them. A
   * request given up on (a timeout, the client leaving) is cancelled with `notifications/cancelled`
   * on a 2025 session; on 2026-07-28 closing the request is the cancellation. Throws UpstreamFailed
   * when no answer came back.
   */
  private async exchange(
    connection: Connection,
    target: UpstreamTarget,
    method: string,
    params: Record<string, unknown> | undefined,
    { signal, whenGone, onNotification, logLevel, clientCapabilities }: RequestOptions,
    route: DirectRoute,
    progressToken?: string,
  ): Promise<Answer> {
    // A string: it can never collide with the numbered requests of the SDK client on the same server.
    const id = `loadout-${++this.directIds}`;
    const session = route.kind === "session" ? route : null;
    const what = method === "tools/call" ? String(params?.name) : method;
    const named = nameOf(method, params);
    let headers: Readonly<Record<string, string>>;
    let body: string;
    if (session) {
      const own: Record<string, string> = { ...target.headers, ...POST_HEADERS };
      own["mcp-protocol-version"] = session.version;
      if (session.sessionId) own["mcp-session-id"] = session.sessionId;
      headers = own;
      const sent = progressToken ? { ...params, _meta: { progressToken } } : params;
      body = JSON.stringify({ jsonrpc: "2.0", id, method, ...(sent ? { params: sent } : {}) });
    } else if (
      method === "tools/call" &&
      named !== undefined &&
      DIRECT_NAME.test(named) &&
      !progressToken &&
      !logLevel &&
      !clientCapabilities &&
      params?.inputResponses === undefined &&
      params?.requestState === undefined
    ) {
      // The plainest call (the common one): its headers and envelope made once per tool.
      headers = statelessHeaders(connection, target, named);
      body = statelessCallBody(id, named, params?.arguments as Record<string, unknown> | undefined);
    } else {
      const own: Record<string, string> = {
        ...target.headers,
        ...POST_HEADERS,
        "mcp-protocol-version": DIRECT_REVISION,
        "mcp-method": method,
      };
      if (named !== undefined) own["mcp-name"] = headerValue(named);
      headers = own;
      const meta = {
        ...DIRECT_ENVELOPE,
        ...(clientCapabilities ? { "io.modelcontextprotocol/clientCapabilities": clientCapabilities } : {}),
        ...(progressToken ? { progressToken } : {}),
        ...(logLevel ? { "io.modelcontextprotocol/logLevel": logLevel } : {}),
      };
      body = JSON.stringify({ jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } });
    }
    const cancellation = new Cancellation();
    let timedOut = false;
    let cancelled = false;
    const timer = setTimeout(() => {
      timedOut = true;
      cancellation.cancel(new Error(`no answer within ${target.callTimeoutMs} ms`));
    }, target.callTimeoutMs);
    const cancel = () => {
      cancelled = true;
      cancellation.cancel(new Error("the client cancelled the call"));
    };
    signal?.addEventListener("abort", cancel, { once: true });
    whenGone?.(cancel);
    if (signal?.aborted) cancel();
    const post = (this.options.postFor ?? ((t: UpstreamTarget) => postThrough(this.options.fetchFor(t))))(target);
    // A message of the session's own (a reply, a cancellation): sent, its 202 read and forgotten.
    const tell = session
      ? (message: Record<string, unknown>) => {
          const given = new Cancellation();
          const limit = setTimeout(() => given.cancel(new Error("no answer")), this.options.connectTimeoutMs);
          (limit as { unref?: () => void }).unref?.();
          return post(target.url, {
            headers,
            body: JSON.stringify({ jsonrpc: "2.0", ...message }),
            cancellation: given,
          })
            .then(async (answer) => {
              for await (const _ of answer.body) {
                // Nothing is expected back.
              }
            })
            .catch(() => {})
            .finally(() => clearTimeout(limit));
        }
      : null;
    let status: number;
    let message: Answer | null;
    try {
      const answer = await post(target.url, { headers, body, cancellation });
      status = answer.status;
      const refusal = authRefusal(status, answer.challenge);
      if (refusal) {
        cancellation.cancel(new Error("refused"));
        this.drop(target.id, target.credential?.owner);
        throw new UpstreamUnauthorized(
          `${target.name} refused the credentials (HTTP ${refusal})`,
          refusal,
          answer.challenge ?? null,
        );
      }
      // A JSON answer read whole here, without readAnswer's promise around it (the common case).
      message =
        !isEventStream(answer.contentType) && answer.body.text
          ? messageAnswer(await answer.body.text(), id)
          : await readAnswer(
              answer.body,
              answer.contentType,
              id,
              () => cancellation.cancel(new Error("the rest of the stream was not needed")),
              undefined,
              tell ? (request) => void tell({ id: request.id, error: METHOD_NOT_FOUND }) : undefined,
              onNotification,
            );
    } catch (error) {
      if (error instanceof UpstreamUnauthorized) throw error;
      if (tell && (timedOut || cancelled))
        void tell({
          method: "notifications/cancelled",
          params: { requestId: id, reason: timedOut ? "Request timed out" : "Cancelled by the client" },
        });
      this.drop(target.id, target.credential?.owner);
      if (cancelled) throw new UpstreamFailed(FAILED.cancelled(target, what));
      if (timedOut) throw new UpstreamFailed(FAILED.timeout(target, what));
      throw new UpstreamFailed(FAILED.broken(target, what, messageOf(error)));
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener("abort", cancel);
    }
    // A JSON-RPC error is the server's answer whatever the status (2026-07-28 sends some with 400/404).
    if (message && "error" in message) return message;
    if (status !== 200 || !message) {
      this.drop(target.id, target.credential?.owner);
      throw new UpstreamFailed(
        status !== 200 ? FAILED.broken(target, what, `HTTP ${status}`) : FAILED.garbled(target, what),
      );
    }
    return message;
  }

  /**
   * Ends every upstream session, within `ms`: a 2025 session is told with DELETE first (the
   * upstream frees it), then the client closes, which cuts short the calls still in flight.
   */
  async close(ms = 1_000) {
    if (this.sweeper) clearInterval(this.sweeper);
    this.sweeper = undefined;
    const open = [...this.connections.values()];
    this.connections.clear();
    await Promise.all(
      open.map(async (pending) => {
        const connection = await withTimeout(pending, ms, "closing").catch(() => null);
        if (!connection) {
          // Still connecting (or it failed): closed whenever it opens.
          pending.then((c) => c.client.close()).catch(() => {});
          return;
        }
        await withTimeout(connection.transport?.terminateSession() ?? Promise.resolve(), ms, "closing").catch(() => {});
        await connection.client.close().catch(() => {});
      }),
    );
  }
}

/** What a failed connection means for the user, with what to do about it. */
export function describeConnectError(error: unknown): string {
  if (error instanceof SdkHttpError) {
    const hints: Record<number, string> = {
      401: "the server wants authorization: add its token as a header, such as Authorization: Bearer …",
      403: "the server refused access: check that the token in the headers may use it",
      404: "nothing answers at this URL: check the path (often /mcp, or /sse for older servers)",
      405: "this URL does not accept MCP requests: check the path (often /mcp, or /sse for older servers)",
    };
    const hint = hints[error.status];
    if (hint) return `HTTP ${error.status}: ${hint}`;
    return `HTTP ${error.status}: ${messageOf(error)}`;
  }
  // The code of the first error in the cause chain that has one (the SDK wraps fetch's TypeError,
  // which wraps the socket error).
  let code: unknown;
  let innermost: unknown = error;
  for (let e: unknown = error, depth = 0; e && depth < 6 && code === undefined; depth++) {
    innermost = e;
    code = (e as { code?: unknown }).code;
    if (
      typeof code !== "string" ||
      !/^(E[A-Z]+|CERT_[A-Z_]+|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_[A-Z_]+)$/.test(code)
    )
      code = undefined;
    e = (e as { cause?: unknown }).cause ?? (e as { data?: { cause?: unknown } }).data?.cause;
  }
  if (code === "ECONNREFUSED") return "the connection was refused: is the server running, and is the port right?";
  if (code === "ENOTFOUND" || code === "EAI_AGAIN") return "the host name does not resolve: check the URL";
  if (code === "ECONNRESET") return "the server closed the connection during the handshake";
  if ((typeof code === "string" && code.startsWith("CERT_")) || code === "DEPTH_ZERO_SELF_SIGNED_CERT")
    return `the server's TLS certificate is not valid (${code})`;
  return innermost === error ? messageOf(error) : `${messageOf(error)} (${messageOf(innermost)})`;
}

function capped(tools: UpstreamTool[]): { tools: UpstreamTool[]; truncated: boolean } {
  return { tools: tools.slice(0, MAX_TOOLS_PER_SERVER), truncated: tools.length > MAX_TOOLS_PER_SERVER };
}

/**
 * Real upstream MCP servers for the proxy's tests, built on the official SDK v2 and served over
 * node:http on a random loopback port. One endpoint answers the stateless 2026-07-28 revision and
 * 2025-era clients (`createMcpHandler(…, { legacy: "stateless" })`): a 2025 `initialize` gets no
 * session id, and GET/DELETE are answered 405.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  acceptedContent,
  createMcpHandler,
  InMemoryServerEventBus,
  inputRequired,
  type McpHttpHandler,
  McpServer,
  ResourceTemplate,
} from "@modelcontextprotocol/server";
import { z } from "zod";

/** A 1×1 PNG, the content of the `image` tool. */
export const TINY_PNG_BASE64 =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** Characters in the text block the misbehaving `huge` tool returns (20 MB). */
export const HUGE_TEXT_LENGTH = 20 * 1024 * 1024;

export interface Issue {
  id: string;
  title: string;
  state: "open" | "closed";
}

export interface StatelessUpstreamOptions {
  /** `serverInfo.name`; default `upstream-stateless`. */
  name?: string;
  /** `reject` serves the 2026-07-28 revision only; default `stateless` also serves 2025-era clients. */
  legacy?: "stateless" | "reject";
  /** Read-only filler tools `extra_01`… to reach a given count (the bench's 64 tools per server). */
  extraTools?: number;
  /** Declare logging and offer `chatty`, which logs two messages on the call's stream, then returns. */
  logging?: boolean;
  /**
   * Offer resources and prompts: the resource `memo://notes`, the template `memo://notes/{id}` and
   * the prompt `greet`, whose description carries a version (see setPromptVersion).
   */
  items?: boolean;
}

export interface StatelessUpstream {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** HTTP requests received, of any method and path. */
  requests(): number;
  /** Every Authorization header value received, in order (to prove what the proxy forwards). */
  authorizations(): string[];
  /** The client capabilities each 2026-07-28 `tools/call` declared in its envelope, in order. */
  callCapabilities(): unknown[];
  /** How many times the tool's handler ran. */
  calls(tool: string): number;
  /** The live issue list: `create` appends, `close` flips `state`. */
  issues: Issue[];
  /** Adds a read-only tool and announces `notifications/tools/list_changed` to open subscriptions. */
  addTool(name: string): void;
  /** Changes the version in `greet`'s description for every later listing (see `items`), and announces `notifications/prompts/list_changed`. */
  setPromptVersion(version: number): void;
  /** Requests by method (resources/read, prompts/get…), to prove what reached the upstream. */
  received(method: string): number;
  /** Announces `notifications/resources/updated` for `uri` to the listen streams that asked for it (see `items`). */
  updateResource(uri: string): void;
  /** Open `subscriptions/listen` streams (Loadout holds one per resource it watches here). */
  listeners(): number;
  stop(): Promise<void>;
}

export interface MisbehavingUpstream {
  url: string;
  requests(): number;
  /** `notifications/cancelled` messages received (2025-era clients cancel this way). */
  cancelled(): number;
  /** `hang` calls whose HTTP request the client closed (2026-07-28 clients cancel this way). */
  aborted(): number;
  /** `tools/list` requests answered. */
  listings(): number;
  /** `tools/call` requests Loadout sent without the SDK client (its ids are `loadout-…` strings). */
  directCalls(): number;
  /**
   * Pins the version in `shifty`'s description for every later listing. Without it the first
   * listing says version 1 and every later one version 2.
   */
  setShiftyVersion(version: number): void;
  stop(): Promise<void>;
}

/** The description `shifty` carries in a listing that shows `version`. */
export function shiftyDescription(version: number): string {
  return `Returns the word of the day (description version ${version}).`;
}

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const failure = (value: string) => ({ ...text(value), isError: true });

export async function startStatelessUpstream(options: StatelessUpstreamOptions = {}): Promise<StatelessUpstream> {
  const issues: Issue[] = [];
  const counts = new Map<string, number>();
  const count = (tool: string) => counts.set(tool, (counts.get(tool) ?? 0) + 1);
  let nextIssue = 1;
  const added: string[] = [];
  let promptVersion = 1;
  const methods = new Map<string, number>();
  const bus = new InMemoryServerEventBus();

  const handler = createMcpHandler(
    () => {
      const server = new McpServer(
        { name: options.name ?? "upstream-stateless", version: "1.0.0" },
        {
          capabilities: {
            tools: { listChanged: true },
            ...(options.items ? { resources: { subscribe: true } } : {}),
            ...(options.logging ? { logging: {} } : {}),
          },
        },
      );
      if (options.items) {
        server.registerResource(
          "notes",
          "memo://notes",
          { description: "Every note.", mimeType: "text/plain" },
          async (uri) => ({ contents: [{ uri: uri.href, text: "note 1, note 2" }] }),
        );
        server.registerResource(
          "note",
          new ResourceTemplate("memo://notes/{id}", { list: undefined }),
          { description: "One note by its number.", mimeType: "text/plain" },
          async (uri, { id }) => ({ contents: [{ uri: uri.href, text: `note ${String(id)}` }] }),
        );
        server.registerPrompt(
          "greet",
          {
            description: `Greets someone (description version ${promptVersion}).`,
            argsSchema: z.object({ who: z.string().describe("Whom to greet") }),
          },
          ({ who }) => ({ messages: [{ role: "user", content: { type: "text", text: `Hello, ${who}!` } }] }),
        );
        server.registerTool(
          "link_note",
          {
            title: "Link a note",
            description: "Returns a link to note 3.",
            inputSchema: z.object({}),
            annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          },
          async () => ({ content: [{ type: "resource_link" as const, uri: "memo://notes/3", name: "note 3" }] }),
        );
      }
      if (options.logging)
        server.registerTool(
          "chatty",
          {
            title: "Chatty",
            description: "Logs two messages (info, then debug) while it runs, then returns.",
            inputSchema: z.object({}),
            annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          },
          async (_args, ctx) => {
            await ctx.mcpReq.log("info", "chatty: starting");
            await ctx.mcpReq.log("debug", "chatty: details");
            return text("chatty: done");
          },
        );
      for (const name of added)
        server.registerTool(
          name,
          {
            title: name,
            description: `Added while running: ${name}.`,
            inputSchema: z.object({}),
            annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          },
          async () => text(name),
        );
      server.registerTool(
        "issues",
        {
          title: "Issues",
          description: "Lists, reads, creates and closes issues of the test tracker.",
          inputSchema: z.object({
            action: z.enum(["list", "get", "create", "close"]),
            id: z.string().optional(),
            title: z.string().optional(),
          }),
          annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
        },
        async ({ action, id, title }) => {
          count("issues");
          if (action === "list") return text(JSON.stringify(issues));
          if (action === "create") {
            if (!title) return failure("create needs a title.");
            const issue: Issue = { id: `issue-${nextIssue++}`, title, state: "open" };
            issues.push(issue);
            return text(JSON.stringify(issue));
          }
          const issue = issues.find((i) => i.id === id);
          if (!issue) return failure(`No issue ${id ?? "(no id given)"}.`);
          if (action === "close") issue.state = "closed";
          return text(JSON.stringify(issue));
        },
      );
      server.registerTool(
        "echo",
        {
          title: "Echo",
          description: "Returns its text argument unchanged.",
          inputSchema: z.object({ text: z.string() }),
          outputSchema: z.object({ text: z.string() }),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async ({ text: value }) => {
          count("echo");
          return { ...text(value), structuredContent: { text: value } };
        },
      );
      server.registerTool(
        "progress",
        {
          title: "Progress",
          description: "Reports three progress steps when the call carries a progressToken, then returns.",
          inputSchema: z.object({}),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async (_args, ctx) => {
          count("progress");
          const progressToken = ctx.mcpReq._meta?.progressToken;
          if (progressToken === undefined) return text("done without progress");
          for (let step = 1; step <= 3; step++) {
            await ctx.mcpReq.notify({
              method: "notifications/progress",
              params: { progressToken, progress: step, total: 3, message: `step ${step}` },
            });
          }
          return text("done after 3 steps");
        },
      );
      server.registerTool(
        "confirm",
        {
          title: "Confirm",
          description: "Asks the user to confirm (an elicitation, 2026-07-28 only), then says what was confirmed.",
          inputSchema: z.object({ what: z.string() }),
          annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async ({ what }, ctx) => {
          const confirmation = z.object({ confirm: z.boolean() });
          const answer = acceptedContent(ctx.mcpReq.inputResponses, "confirm", confirmation);
          if (!answer)
            return inputRequired({
              inputRequests: {
                confirm: inputRequired.elicit({ message: `Confirm ${what}?`, requestedSchema: confirmation }),
              },
            });
          count("confirm");
          return text(answer.confirm ? `confirmed ${what}` : `declined ${what}`);
        },
      );
      server.registerTool(
        "image",
        {
          title: "Image",
          description: "Returns a 1×1 PNG image.",
          inputSchema: z.object({}),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async () => {
          count("image");
          return { content: [{ type: "image" as const, data: TINY_PNG_BASE64, mimeType: "image/png" }] };
        },
      );
      for (let i = 1; i <= (options.extraTools ?? 0); i++) {
        const name = `extra_${String(i).padStart(2, "0")}`;
        server.registerTool(
          name,
          {
            title: `Extra ${i}`,
            description: `Filler tool ${i}: returns its query.`,
            inputSchema: z.object({ query: z.string().describe("Anything") }),
            annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          },
          async ({ query }) => text(query),
        );
      }
      return server;
    },
    { legacy: options.legacy ?? "stateless", bus },
  );

  let requests = 0;
  const authorizations: string[] = [];
  const callCapabilities: unknown[] = [];
  const http = createServer((req, res) => {
    requests++;
    if (req.headers.authorization) authorizations.push(req.headers.authorization);
    readBody(req)
      .then((body) => {
        let message: { method?: unknown; params?: { _meta?: Record<string, unknown> } } | undefined;
        try {
          message = JSON.parse(body.toString("utf8"));
        } catch {
          // Not JSON: the handler says so.
        }
        if (typeof message?.method === "string") methods.set(message.method, (methods.get(message.method) ?? 0) + 1);
        const meta = message?.params?._meta;
        if (message?.method === "tools/call" && meta && "io.modelcontextprotocol/clientCapabilities" in meta)
          callCapabilities.push(meta["io.modelcontextprotocol/clientCapabilities"]);
        return forward(handler, req, res, body, undefined);
      })
      .catch(() => res.destroy());
  });
  const url = await listen(http);
  return {
    url,
    requests: () => requests,
    authorizations: () => [...authorizations],
    callCapabilities: () => [...callCapabilities],
    calls: (tool) => counts.get(tool) ?? 0,
    issues,
    addTool(name) {
      added.push(name);
      handler.notify.toolsChanged();
    },
    setPromptVersion(version) {
      promptVersion = version;
      handler.notify.promptsChanged();
    },
    received: (method) => methods.get(method) ?? 0,
    updateResource: (uri) => handler.notify.resourceUpdated(uri),
    listeners: () => bus.listenerCount,
    stop: () => shutdown(http, handler),
  };
}

/** The tools whose calls never reach the SDK: answered (or not) by hand. */
const BY_HAND = new Set(["hang", "drop", "garbage"]);

export async function startMisbehavingUpstream(
  options: {
    /** Refuse `server/discover`, as a server of the 2025 revisions does, so clients fall back to them. */
    era?: "2025";
  } = {},
): Promise<MisbehavingUpstream> {
  let requests = 0;
  let directCalls = 0;
  let cancelled = 0;
  let aborted = 0;
  let listings = 0;
  let pinned: number | null = null;

  const handler = createMcpHandler(
    ({ authInfo }) => {
      const server = new McpServer(
        { name: "upstream-misbehaving", version: "1.0.0" },
        { capabilities: { tools: { listChanged: false } } },
      );
      const noop = async () => text("unreachable: answered by hand");
      const annotations = { readOnlyHint: true, openWorldHint: false };
      server.registerTool("hang", { title: "Hang", description: "Never answers.", annotations }, noop);
      server.registerTool("drop", { title: "Drop", description: "Closes the connection mid-call.", annotations }, noop);
      server.registerTool(
        "garbage",
        {
          title: "Garbage",
          description: "Answers with bytes that are not JSON (kind bytes) or JSON that is not JSON-RPC (kind rpc).",
          inputSchema: z.object({ kind: z.enum(["bytes", "rpc"]).optional() }),
          annotations,
        },
        noop,
      );
      server.registerTool("huge", { title: "Huge", description: "Returns 20 MB of text.", annotations }, async () =>
        text("x".repeat(HUGE_TEXT_LENGTH)),
      );
      const version = typeof authInfo?.extra?.shifty === "number" ? authInfo.extra.shifty : 1;
      server.registerTool(
        "shifty",
        { title: "Shifty", description: shiftyDescription(version), annotations },
        async () => text(`shifty ${version}`),
      );
      return server;
    },
    { legacy: "stateless" },
  );

  const http = createServer((req, res) => {
    requests++;
    readBody(req)
      .then((body) => {
        const message = parseMessage(body);
        if (options.era === "2025" && message?.method === "server/discover") {
          res.writeHead(200, { "content-type": "application/json" });
          res.end(
            JSON.stringify({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: "Method not found" } }),
          );
          return;
        }
        if (message?.method === "tools/call" && typeof message.id === "string" && message.id.startsWith("loadout-"))
          directCalls++;
        if (message?.method === "notifications/cancelled") {
          cancelled++;
          res.writeHead(202).end();
          return;
        }
        const tool = message?.method === "tools/call" ? message.params?.name : undefined;
        if (typeof tool === "string" && BY_HAND.has(tool)) return misbehave(tool, message, req, res);
        // Read before the count moves, so the first listing itself still shows version 1.
        const shifty = pinned ?? (listings === 0 ? 1 : 2);
        if (message?.method === "tools/list") listings++;
        return forward(handler, req, res, body, { token: "upstream", clientId: "test", scopes: [], extra: { shifty } });
      })
      .catch(() => res.destroy());
  });

  function misbehave(tool: string, message: RpcMessage | null, req: IncomingMessage, res: ServerResponse) {
    if (tool === "hang") {
      res.on("close", () => {
        if (!res.writableEnded) aborted++;
      });
      return;
    }
    if (tool === "drop") {
      req.socket.destroy();
      return;
    }
    const kind = message?.params?.arguments?.kind;
    res.writeHead(200, { "content-type": "application/json" });
    res.end(kind === "rpc" ? JSON.stringify({ jsonrpc: "2.0", id: message?.id ?? null }) : "\u0000not json{{{");
  }

  const url = await listen(http);
  return {
    url,
    requests: () => requests,
    cancelled: () => cancelled,
    aborted: () => aborted,
    directCalls: () => directCalls,
    listings: () => listings,
    setShiftyVersion: (version) => {
      pinned = version;
    },
    stop: () => shutdown(http, handler),
  };
}

interface RpcMessage {
  id?: string | number | null;
  method?: string;
  params?: { name?: unknown; arguments?: { kind?: unknown } };
}

function parseMessage(body: Buffer): RpcMessage | null {
  try {
    const value: unknown = JSON.parse(body.toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as RpcMessage) : null;
  } catch {
    return null;
  }
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

type AuthInfo = NonNullable<Parameters<McpHttpHandler["fetch"]>[1]>["authInfo"];

/** Serves one node:http exchange with the SDK's fetch-shaped handler, streaming its answer back. */
async function forward(
  handler: McpHttpHandler,
  req: IncomingMessage,
  res: ServerResponse,
  body: Buffer,
  authInfo: AuthInfo,
): Promise<void> {
  const abort = new AbortController();
  // The SDK cancels a 2026-07-28 exchange when the request's signal aborts: tie it to the client.
  res.on("close", () => {
    if (!res.writableEnded) abort.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const method = req.method ?? "GET";
  const request = new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`), {
    method,
    headers,
    body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(body),
    signal: abort.signal,
  });
  await writeResponse(res, await handler.fetch(request, authInfo ? { authInfo } : undefined));
}

/** Writes a web Response to a node:http answer, streaming its body (an MCP answer may be an event stream). */
export async function writeResponse(res: ServerResponse, response: Response): Promise<void> {
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => {
    reader.cancel().catch(() => {});
  });
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (res.destroyed) break;
    if (!res.write(value))
      await new Promise((resolve) => {
        res.once("drain", resolve);
        res.once("close", resolve);
      });
  }
  res.end();
}

async function listen(http: Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(0, "127.0.0.1", resolve);
  });
  const { port } = http.address() as AddressInfo;
  return `http://127.0.0.1:${port}/mcp`;
}

async function shutdown(http: Server, handler: McpHttpHandler): Promise<void> {
  await handler.close();
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // Hanging calls and idle keep-alive sockets would hold close() open forever.
  http.closeAllConnections();
  await closed;
}

/**
 * Serves an SDK handler (`createMcpHandler`) on a loopback port, as the upstreams here are served:
 * for tests that build their own upstream server (MCP Apps views, the skills extension).
 */
export async function serveMcpHandler(handler: McpHttpHandler): Promise<{ url: string; stop(): Promise<void> }> {
  const http = createServer((req, res) => {
    readBody(req)
      .then((body) => forward(handler, req, res, body, undefined))
      .catch(() => res.destroy());
  });
  const url = await listen(http);
  return { url, stop: () => shutdown(http, handler) };
}

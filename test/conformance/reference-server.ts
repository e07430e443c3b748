/**
 * The reference MCP server for `npm run conformance`: every tool, resource and prompt the official
 * conformance suite's server scenarios (`@modelcontextprotocol/conformance` 0.2.0-alpha.12, both
 * `--requirements` sets) call by name, written on the SDK v2 from the suite's scenario list.
 *
 * One endpoint serves both eras. 2026-07-28 requests go to `createMcpHandler` (stateless, MRTR).
 * 2025-era clients get a real session, because the 2025 scenarios need one: sampling and
 * elicitation are server-to-client requests whose answers come back on later POSTs, and
 * `logging/setLevel` must still hold on the next call. A per-request stateless legacy leg would
 * lose all three.
 *
 * Run it alone with `node --import tsx test/conformance/reference-server.ts`: it prints its URL.
 */
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { pathToFileURL } from "node:url";
import {
  acceptedContent,
  CLIENT_CAPABILITIES_META_KEY,
  type ClientCapabilities,
  completable,
  createMcpHandler,
  createRequestStateCodec,
  fromJsonSchema,
  hostHeaderValidationResponse,
  inputRequired,
  isLegacyRequest,
  localhostAllowedHostnames,
  localhostAllowedOrigins,
  McpServer,
  originValidationResponse,
  type PromptMessage,
  ResourceTemplate,
  type ServerContext,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { z } from "zod";

/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
/** A WAV header with no samples: the smallest valid `audio/wav`. */
const WAV = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

export interface ReferenceServer {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  stop(): Promise<void>;
}

type Era = "legacy" | "modern";

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The capabilities the client declared: per request on 2026-07-28, from `initialize` on 2025. */
function clientCapabilities(server: McpServer, ctx: ServerContext): ClientCapabilities {
  const envelope: Record<string, unknown> = ctx.mcpReq.envelope ?? {};
  const declared = envelope[CLIENT_CAPABILITIES_META_KEY];
  if (declared && typeof declared === "object") return declared as ClientCapabilities;
  return server.server.getClientCapabilities() ?? {};
}

const nameSchema = z.object({ name: z.string() });
const elicitName = (message: string) => inputRequired.elicit({ message, requestedSchema: nameSchema });
const samplingRequest = (prompt: string, maxTokens: number) =>
  inputRequired.createMessage({ messages: [{ role: "user", content: { type: "text", text: prompt } }], maxTokens });
/** The text of a sampling answer, whatever shape of content it carries. */
function sampledText(answer: unknown): string {
  const content = (answer as { content?: unknown } | undefined)?.content;
  const block = Array.isArray(content) ? content[0] : content;
  const value = (block as { text?: unknown } | undefined)?.text;
  return typeof value === "string" ? value : JSON.stringify(answer ?? null);
}
const responseOf = (ctx: ServerContext, key: string): unknown => ctx.mcpReq.inputResponses?.[key];
const describe = (answer: unknown) => {
  const { action, content } = (answer ?? {}) as { action?: unknown; content?: unknown };
  return `action=${String(action)}, content=${JSON.stringify(content ?? {})}`;
};

interface Hooks {
  toolsChanged(): void;
  promptsChanged(): void;
}

function buildServer(era: Era, hooks: Hooks, codec: ReturnType<typeof createRequestStateCodec<unknown>>): McpServer {
  const server = new McpServer(
    { name: "loadout-conformance-reference", version: "1.0.0" },
    {
      capabilities: {
        tools: { listChanged: true },
        prompts: { listChanged: true },
        // Resource subscriptions: `resources/subscribe` on 2025, `resourceSubscriptions` of a
        // `subscriptions/listen` on 2026-07-28 (the SDK's listen router honours them when declared).
        resources: { subscribe: true, listChanged: true },
        logging: {},
        completions: {},
      },
      // The tampered-state scenario needs the state signed; the codec's verify answers -32602.
      requestState: { verify: codec.verify },
    },
  );
  const tool = (
    name: string,
    description: string,
    run: (args: Record<string, unknown>, ctx: ServerContext) => ReturnType<Parameters<McpServer["registerTool"]>[2]>,
    inputSchema: z.ZodObject = z.object({}),
  ) => server.registerTool(name, { description, inputSchema }, run);

  tool("test_simple_text", "Returns simple text.", async () => text("This is a simple text response for testing."));
  tool("test_image_content", "Returns a PNG image.", async () => ({
    content: [{ type: "image", data: PNG, mimeType: "image/png" }],
  }));
  tool("test_audio_content", "Returns a WAV clip.", async () => ({
    content: [{ type: "audio", data: WAV, mimeType: "audio/wav" }],
  }));
  tool("test_embedded_resource", "Returns an embedded text resource.", async () => ({
    content: [
      {
        type: "resource",
        resource: {
          uri: "test://embedded-resource",
          mimeType: "text/plain",
          text: "This is an embedded resource content.",
        },
      },
    ],
  }));
  tool("test_multiple_content_types", "Returns text, an image and a resource.", async () => ({
    content: [
      { type: "text", text: "Multiple content types test:" },
      { type: "image", data: PNG, mimeType: "image/png" },
      {
        type: "resource",
        resource: {
          uri: "test://mixed-content-resource",
          mimeType: "application/json",
          text: JSON.stringify({ test: "data", value: 123 }),
        },
      },
    ],
  }));
  const logThree = async (_args: Record<string, unknown>, ctx: ServerContext) => {
    await ctx.mcpReq.log("info", "Tool execution started");
    await sleep(50);
    await ctx.mcpReq.log("info", "Tool processing data");
    await sleep(50);
    await ctx.mcpReq.log("info", "Tool execution completed");
    return text("Logging tool finished.");
  };
  tool("test_tool_with_logging", "Sends three log messages while it runs.", logThree);
  tool("test_logging_tool", "Logs while it runs; silent unless the request asks for a log level.", logThree);
  tool("test_error_handling", "Always fails.", async () => ({
    ...text("This tool intentionally returns an error for testing"),
    isError: true,
  }));
  tool("test_tool_with_progress", "Reports progress 0, 50, 100.", async (_args, ctx) => {
    const progressToken = ctx.mcpReq._meta?.progressToken;
    for (const progress of [0, 50, 100]) {
      if (progressToken !== undefined)
        await ctx.mcpReq.notify({ method: "notifications/progress", params: { progressToken, progress, total: 100 } });
      await sleep(20);
    }
    return text("Progress tool finished.");
  });

  // Written once for both eras: on 2025 the SDK's legacy shim turns an input_required return into
  // real server-to-client requests on the session and re-enters the handler with the answers.
  tool(
    "test_sampling",
    "Asks the client's model to answer the prompt.",
    async (args, ctx) => {
      const answer = responseOf(ctx, "sample");
      if (answer === undefined)
        return inputRequired({ inputRequests: { sample: samplingRequest(String(args.prompt ?? ""), 100) } });
      return text(`LLM response: ${sampledText(answer)}`);
    },
    z.object({ prompt: z.string() }),
  );
  tool(
    "test_elicitation",
    "Asks the user for a username and an email.",
    async (args, ctx) => {
      const answer = responseOf(ctx, "user");
      if (answer === undefined)
        return inputRequired({
          inputRequests: {
            user: inputRequired.elicit({
              message: String(args.message ?? ""),
              requestedSchema: {
                type: "object",
                properties: {
                  username: { type: "string", description: "User's response" },
                  email: { type: "string", description: "User's email address" },
                },
                required: ["username", "email"],
              },
            }),
          },
        });
      return text(`User response: ${describe(answer)}`);
    },
    z.object({ message: z.string() }),
  );
  tool("test_elicitation_sep1034_defaults", "Elicits with defaults for every primitive type.", async (_args, ctx) => {
    const answer = responseOf(ctx, "defaults");
    if (answer === undefined)
      return inputRequired({
        inputRequests: {
          defaults: inputRequired.elicit({
            message: "Please review and update the form fields with defaults",
            requestedSchema: {
              type: "object",
              properties: {
                name: { type: "string", description: "User name", default: "John Doe" },
                age: { type: "integer", description: "User age", default: 30 },
                score: { type: "number", description: "User score", default: 95.5 },
                status: {
                  type: "string",
                  description: "User status",
                  enum: ["active", "inactive", "pending"],
                  default: "active",
                },
                verified: { type: "boolean", description: "Verification status", default: true },
              },
              required: [],
            },
          }),
        },
      });
    return text(`Elicitation completed: ${describe(answer)}`);
  });
  tool("test_elicitation_sep1330_enums", "Elicits with all five enum schema variants.", async (_args, ctx) => {
    const answer = responseOf(ctx, "enums");
    if (answer === undefined)
      return inputRequired({
        inputRequests: {
          enums: inputRequired.elicit({
            message: "Please select options from the enum fields",
            requestedSchema: {
              type: "object",
              properties: {
                untitledSingle: { type: "string", enum: ["option1", "option2", "option3"] },
                titledSingle: {
                  type: "string",
                  oneOf: [
                    { const: "value1", title: "First Option" },
                    { const: "value2", title: "Second Option" },
                    { const: "value3", title: "Third Option" },
                  ],
                },
                legacyEnum: {
                  type: "string",
                  enum: ["opt1", "opt2", "opt3"],
                  enumNames: ["Option One", "Option Two", "Option Three"],
                },
                untitledMulti: { type: "array", items: { type: "string", enum: ["option1", "option2", "option3"] } },
                titledMulti: {
                  type: "array",
                  items: {
                    anyOf: [
                      { const: "value1", title: "First Choice" },
                      { const: "value2", title: "Second Choice" },
                      { const: "value3", title: "Third Choice" },
                    ],
                  },
                },
              },
              required: [],
            },
          }),
        },
      });
    return text(`Elicitation completed: ${describe(answer)}`);
  });
  server.registerTool(
    "json_schema_2020_12_tool",
    {
      description: "Tool with JSON Schema 2020-12 features",
      inputSchema: fromJsonSchema({
        $schema: "https://json-schema.org/draft/2020-12/schema",
        type: "object",
        $defs: {
          address: {
            $anchor: "addressDef",
            type: "object",
            properties: { street: { type: "string" }, city: { type: "string" } },
          },
        },
        properties: {
          name: { type: "string" },
          address: { $ref: "#/$defs/address" },
          contactMethod: { type: "string", enum: ["phone", "email"] },
          phone: { type: "string" },
          email: { type: "string" },
        },
        allOf: [{ anyOf: [{ required: ["phone"] }, { required: ["email"] }] }],
        if: { properties: { contactMethod: { const: "phone" } }, required: ["contactMethod"] },
        // biome-ignore lint/suspicious/noThenProperty: JSON Schema's if/then/else, which the scenario checks is kept.
        then: { required: ["phone"] },
        else: { required: ["email"] },
        additionalProperties: false,
      }),
    },
    async () => text("JSON Schema 2020-12 tool called."),
  );

  // Diagnostic hooks of the server-stateless scenario.
  // Asking for sampling the client did not declare: the SDK answers -32021 before anything is sent.
  tool("test_missing_capability", "Needs the client's sampling capability.", async (_args, ctx) => {
    const answer = responseOf(ctx, "sample");
    if (answer === undefined) return inputRequired({ inputRequests: { sample: samplingRequest("Say hello", 20) } });
    return text(`The model said: ${sampledText(answer)}`);
  });
  tool(
    "test_streaming_elicitation",
    "Asks for a name (input_required, never a request on the stream).",
    async (_a, ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "name", nameSchema);
      if (!answer) return inputRequired({ inputRequests: { name: elicitName("What is your name?") } });
      return text(`Hello, ${answer.name}!`);
    },
  );
  tool("test_trigger_tool_change", "Announces that the tool list changed.", async () => {
    hooks.toolsChanged();
    return text("Tool list change announced.");
  });
  tool("test_trigger_prompt_change", "Announces that the prompt list changed.", async () => {
    hooks.promptsChanged();
    return text("Prompt list change announced.");
  });

  registerInputRequiredTools(server, codec);
  registerResources(server, era);
  registerPrompts(server);
  return server;
}

/** The SEP-2322 (MRTR) tools of the 2026-07-28 input-required scenarios. */
function registerInputRequiredTools(server: McpServer, codec: ReturnType<typeof createRequestStateCodec<unknown>>) {
  server.registerTool(
    "test_input_required_result_elicitation",
    { description: "Asks for a name, then greets it.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      // A wrong key, a non-object or null answer all re-request the name (SEP-2322's SHOULD).
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_name", nameSchema);
      if (!answer) return inputRequired({ inputRequests: { user_name: elicitName("What is your name?") } });
      return text(`Hello, ${answer.name}!`);
    },
  );
  server.registerTool(
    "test_input_required_result_sampling",
    { description: "Asks the client's model a question.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = responseOf(ctx, "capital_question");
      if (answer === undefined)
        return inputRequired({
          inputRequests: { capital_question: samplingRequest("What is the capital of France?", 100) },
        });
      return text(`The model said: ${sampledText(answer)}`);
    },
  );
  server.registerTool(
    "test_input_required_result_list_roots",
    { description: "Asks for the client's roots.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const answer = responseOf(ctx, "client_roots") as { roots?: { uri?: string }[] } | undefined;
      if (answer === undefined) return inputRequired({ inputRequests: { client_roots: inputRequired.listRoots() } });
      return text(`Roots: ${(answer.roots ?? []).map((r) => r.uri).join(", ")}`);
    },
  );
  // Both tools sign their state; the codec refuses a tampered one with -32602 before this runs.
  const confirmWithState = async (_args: Record<string, unknown>, ctx: ServerContext) => {
    const state = ctx.mcpReq.requestState<{ step: string }>();
    if (state?.step !== "confirm" || responseOf(ctx, "confirm") === undefined)
      return inputRequired({
        inputRequests: {
          confirm: inputRequired.elicit({ message: "Please confirm", requestedSchema: z.object({ ok: z.boolean() }) }),
        },
        requestState: await codec.mint({ step: "confirm" }),
      });
    return text("state-ok: the request state came back intact.");
  };
  for (const name of ["test_input_required_result_request_state", "test_input_required_result_tampered_state"])
    server.registerTool(
      name,
      { description: "Asks for confirmation and round-trips a signed state.", inputSchema: z.object({}) },
      confirmWithState,
    );
  server.registerTool(
    "test_input_required_result_multiple_inputs",
    { description: "Asks for a name, a greeting and the roots at once.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const keys = ["user_name", "greeting", "client_roots"];
      if (keys.some((key) => responseOf(ctx, key) === undefined) || ctx.mcpReq.requestState() === undefined)
        return inputRequired({
          inputRequests: {
            user_name: elicitName("What is your name?"),
            greeting: samplingRequest("Generate a greeting", 50),
            client_roots: inputRequired.listRoots(),
          },
          requestState: await codec.mint({ step: "all" }),
        });
      return text("All three inputs arrived.");
    },
  );
  server.registerTool(
    "test_input_required_result_multi_round",
    { description: "Asks for a name, then a colour, then answers.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const state = ctx.mcpReq.requestState<{ round: number; name?: string }>();
      const name = acceptedContent(ctx.mcpReq.inputResponses, "step1", nameSchema);
      const colour = acceptedContent(ctx.mcpReq.inputResponses, "step2", z.object({ color: z.string() }));
      if (state?.round === 2 && colour) return text(`${state.name ?? "You"} likes ${colour.color}.`);
      if (state?.round === 1 && name)
        return inputRequired({
          inputRequests: {
            step2: inputRequired.elicit({
              message: "Step 2: What is your favorite color?",
              requestedSchema: z.object({ color: z.string() }),
            }),
          },
          requestState: await codec.mint({ round: 2, name: name.name }),
        });
      return inputRequired({
        inputRequests: { step1: elicitName("Step 1: What is your name?") },
        requestState: await codec.mint({ round: 1 }),
      });
    },
  );
  server.registerTool(
    "test_input_required_result_capabilities",
    { description: "Asks only for what the client declared it can answer.", inputSchema: z.object({}) },
    async (_args, ctx) => {
      const declared = clientCapabilities(server, ctx);
      if (responseOf(ctx, "sample") !== undefined || responseOf(ctx, "user_name") !== undefined)
        return text("Answered with the declared capabilities.");
      return inputRequired({
        inputRequests: {
          ...(declared.sampling ? { sample: samplingRequest("Say hello", 20) } : {}),
          ...(declared.elicitation ? { user_name: elicitName("What is your name?") } : {}),
        },
        requestState: await codec.mint({ step: "capabilities" }),
      });
    },
  );
}

function registerResources(server: McpServer, era: Era) {
  const textResource = (name: string, uri: string, body: string, description: string) =>
    server.registerResource(name, uri, { description, mimeType: "text/plain" }, async () => ({
      contents: [{ uri, mimeType: "text/plain", text: body }],
    }));
  textResource(
    "static-text",
    "test://static-text",
    "This is the content of the static text resource.",
    "A static text resource.",
  );
  server.registerResource(
    "static-binary",
    "test://static-binary",
    { description: "A static PNG.", mimeType: "image/png" },
    async () => ({ contents: [{ uri: "test://static-binary", mimeType: "image/png", blob: PNG }] }),
  );
  textResource(
    "watched-resource",
    "test://watched-resource",
    "Watched resource content.",
    "A resource to subscribe to.",
  );
  server.registerResource(
    "template",
    new ResourceTemplate("test://template/{id}/data", { list: undefined }),
    { description: "Data for an id.", mimeType: "application/json" },
    async (uri, { id }) => ({
      contents: [
        {
          uri: uri.href,
          mimeType: "application/json",
          text: JSON.stringify({ id: String(id), templateTest: true, data: `Data for ID: ${String(id)}` }),
        },
      ],
    }),
  );
  // 2026-07-28 removed these methods: registering them there would answer what must be a 404.
  if (era === "legacy") {
    server.server.setRequestHandler("resources/subscribe", async () => ({}));
    server.server.setRequestHandler("resources/unsubscribe", async () => ({}));
  }
}

function registerPrompts(server: McpServer) {
  const user = (content: PromptMessage["content"]): PromptMessage => ({ role: "user", content });
  server.registerPrompt("test_simple_prompt", { description: "A prompt without arguments." }, async () => ({
    messages: [user({ type: "text", text: "This is a simple prompt for testing." })],
  }));
  server.registerPrompt(
    "test_prompt_with_arguments",
    {
      description: "A prompt with two arguments.",
      argsSchema: z.object({
        arg1: completable(z.string().describe("First test argument"), (value) =>
          ["paris", "park", "party", "test", "testing"].filter((v) => v.startsWith(value)),
        ),
        arg2: z.string().describe("Second test argument"),
      }),
    },
    async ({ arg1, arg2 }) => ({
      messages: [user({ type: "text", text: `Prompt with arguments: arg1='${arg1}', arg2='${arg2}'` })],
    }),
  );
  server.registerPrompt(
    "test_prompt_with_embedded_resource",
    {
      description: "A prompt embedding a resource.",
      argsSchema: z.object({ resourceUri: z.string().describe("URI of the resource to embed") }),
    },
    async ({ resourceUri }) => ({
      messages: [
        user({
          type: "resource",
          resource: { uri: resourceUri, mimeType: "text/plain", text: "Embedded resource content for testing." },
        }),
        user({ type: "text", text: "Please process the embedded resource above." }),
      ],
    }),
  );
  server.registerPrompt("test_prompt_with_image", { description: "A prompt with an image." }, async () => ({
    messages: [
      user({ type: "image", data: PNG, mimeType: "image/png" }),
      user({ type: "text", text: "Please analyze the image above." }),
    ],
  }));
  server.registerPrompt(
    "test_input_required_result_prompt",
    { description: "A prompt that first asks the user for context." },
    async (ctx) => {
      const answer = acceptedContent(ctx.mcpReq.inputResponses, "user_context", z.object({ context: z.string() }));
      if (!answer)
        return inputRequired({
          inputRequests: {
            user_context: inputRequired.elicit({
              message: "What context should the prompt use?",
              requestedSchema: z.object({ context: z.string() }),
            }),
          },
        });
      return { messages: [user({ type: "text", text: `Use this context: ${answer.context}` })] };
    },
  );
}

export async function startReferenceServer(port = 0): Promise<ReferenceServer> {
  const codec = createRequestStateCodec<unknown>({ key: randomBytes(32) });
  const sessions = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; server: McpServer }>();
  const hooks: Hooks = {
    toolsChanged() {
      modern.notify.toolsChanged();
      for (const { server } of sessions.values()) server.sendToolListChanged();
    },
    promptsChanged() {
      modern.notify.promptsChanged();
      for (const { server } of sessions.values()) server.sendPromptListChanged();
    },
  };
  const modern = createMcpHandler(({ era }) => buildServer(era, hooks, codec), { legacy: "reject" });

  async function legacy(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    const known = id ? sessions.get(id) : undefined;
    if (known) return known.transport.handleRequest(request);
    if (id) return new Response("Session not found", { status: 404 });
    // A request without a session may only open one: the transport refuses anything but initialize.
    const server = buildServer("legacy", hooks, codec);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (sessionId) => {
        sessions.set(sessionId, { transport, server });
      },
      onsessionclosed: (sessionId) => {
        sessions.delete(sessionId);
      },
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  }

  async function serve(request: Request): Promise<Response> {
    // The suite's dns-rebinding scenario: a loopback server refuses foreign Host and Origin headers.
    const refused =
      hostHeaderValidationResponse(request, localhostAllowedHostnames()) ??
      originValidationResponse(request, localhostAllowedOrigins());
    if (refused) return refused;
    if (new URL(request.url).pathname !== "/mcp") return new Response("Not found", { status: 404 });
    return (await isLegacyRequest(request)) ? legacy(request) : modern.fetch(request);
  }

  const http = createServer((req, res) => {
    bridge(serve, req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen(port, "127.0.0.1", resolve);
  });
  const { port: bound } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${bound}/mcp`,
    async stop() {
      await modern.close();
      for (const { transport } of sessions.values()) await transport.close();
      await closeServer(http);
    },
  };
}

/** Serves one node:http exchange with a fetch-shaped handler, streaming the answer as it comes. */
async function bridge(handle: (request: Request) => Promise<Response>, req: IncomingMessage, res: ServerResponse) {
  const abort = new AbortController();
  // Closing a 2026-07-28 request's stream is its cancellation: tie the request's signal to it.
  res.on("close", () => {
    if (!res.writableEnded) abort.abort();
  });
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const method = req.method ?? "GET";
  const response = await handle(
    new Request(new URL(req.url ?? "/", `http://${req.headers.host ?? "127.0.0.1"}`), {
      method,
      headers,
      body: method === "GET" || method === "HEAD" ? undefined : new Uint8Array(Buffer.concat(chunks)),
      signal: abort.signal,
    }),
  );
  res.writeHead(response.status, Object.fromEntries(response.headers));
  if (!response.body) return void res.end();
  res.flushHeaders();
  const reader = response.body.getReader();
  res.on("close", () => void reader.cancel().catch(() => {}));
  for (;;) {
    const { done, value } = await reader.read();
    if (done || res.destroyed) break;
    res.write(value);
  }
  res.end();
}

async function closeServer(http: Server): Promise<void> {
  const closed = new Promise<void>((resolve) => http.close(() => resolve()));
  // Open SSE streams and idle keep-alive sockets would hold close() forever.
  http.closeAllConnections();
  await closed;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const reference = await startReferenceServer(Number(process.env.PORT ?? 0));
  console.log(reference.url);
  for (const signal of ["SIGINT", "SIGTERM"] as const)
    process.on(signal, () => void reference.stop().then(() => process.exit(0)));
}

/**
 * One list of MCP calls whose answers must not depend on how the pipeline is hosted: the SDK's
 * per-request server through Hono (the reference, LOADOUT_MCP_FAST_LANE=0), the pipeline's own
 * answers through Hono (LOADOUT_MCP_NODE_ADAPTER=0), through the Node adapter, and in the built
 * Worker in workerd; each on both protocol eras. Nothing here belongs to a test runner: a host is
 * reached through a `send` function, and `differences` says in words what differs.
 */
import { isDeepStrictEqual } from "node:util";
import type { Account, Send } from "./account";

export type Era = "modern" | "legacy";

export interface ParityCase {
  name: string;
  /** The tool called; or with `notification`, none: that notification is sent instead of a call. */
  tool: string;
  notification?: string;
  args?: Record<string, unknown>;
  /** The URL's query (`?mode=plan`). */
  query?: string;
  /** Headers besides the transport's (a User-Agent that makes the client ChatGPT). */
  headers?: Record<string, string>;
  id?: string | number;
  /** Calls an upstream server (`up`, see prepareParityAccount): only where the host has a pool. */
  upstream?: boolean;
}

const CHATGPT = { "user-agent": "openai-mcp/1.0.0" };

/** In order: the skill_edit cases change the account, the same way on every host. */
export const PARITY_CASES: ParityCase[] = [
  { name: "skills get", tool: "skills", args: { action: "get", name: "review" } },
  { name: "skills get of another file", tool: "skills", args: { action: "get", name: "review", path: "notes.md" } },
  { name: "skills get of a missing file", tool: "skills", args: { action: "get", name: "review", path: "nope.md" } },
  { name: "skills get of an unknown item", tool: "skills", args: { action: "get", name: "nobody" } },
  { name: "skills get without a name", tool: "skills", args: { action: "get" }, id: "string-id" },
  { name: "skills get, second chunk", tool: "skills", args: { action: "get", name: "long", start: 20_000 } },
  { name: "skills list", tool: "skills", args: { action: "list" } },
  { name: "skills list in plan mode", tool: "skills", args: { action: "list" }, query: "?mode=plan" },
  { name: "skills with arguments its schema refuses", tool: "skills", args: { action: "delete", name: "review" } },
  { name: "an unknown tool", tool: "nobody_here", args: {} },
  { name: "search, for ChatGPT", tool: "search", args: { query: "review skill" }, headers: CHATGPT },
  { name: "fetch, for ChatGPT", tool: "fetch", args: { id: "review" }, headers: CHATGPT },
  { name: "fetch of an unknown id, for ChatGPT", tool: "fetch", args: { id: "nobody" }, headers: CHATGPT },
  { name: "search, not offered to other clients", tool: "search", args: { query: "review" } },
  {
    name: "skill_edit create",
    tool: "skill_edit",
    args: { action: "create", name: "parity-new", description: "Made by the parity list.", instructions: "# New\n" },
  },
  {
    name: "skill_edit create of a name taken",
    tool: "skill_edit",
    args: { action: "create", name: "review", description: "Again.", instructions: "# Again\n" },
  },
  { name: "skill_edit edit", tool: "skill_edit", args: { action: "edit", name: "parity-new", state: "disabled" } },
  { name: "skill_edit edit back", tool: "skill_edit", args: { action: "edit", name: "parity-new", state: "active" } },
  {
    name: "skill_edit in plan mode (not offered)",
    tool: "skill_edit",
    args: { action: "edit", name: "review", state: "disabled" },
    query: "?mode=plan",
  },
  { name: "an upstream tool", tool: "up_echo", args: { text: "hello" }, upstream: true },
  { name: "an upstream tool with an action", tool: "up_issues", args: { action: "list" }, upstream: true },
  {
    name: "an upstream tool, an action plan mode forbids",
    tool: "up_issues",
    args: { action: "create", title: "x" },
    query: "?mode=plan",
    upstream: true,
  },
  { name: "a switched-off upstream tool", tool: "up_image", args: {}, upstream: true },
  {
    name: "an upstream tool with bad arguments (the upstream says so)",
    tool: "up_echo",
    args: { text: 42 },
    upstream: true,
  },
  // Notifications (a 2025-era client's handshake sends one): acknowledged with no body.
  { name: "notifications/initialized", tool: "", notification: "notifications/initialized" },
  { name: "notifications/roots/list_changed", tool: "", notification: "notifications/roots/list_changed" },
  {
    name: "a notification naming a revision nobody speaks",
    tool: "",
    notification: "notifications/initialized",
    headers: { "mcp-protocol-version": "1999-01-01" },
  },
];

const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "parity-test", version: "1" },
};

/** An answer as it is compared: what any two answers share, the lane apart. */
export interface ParityAnswer {
  status: number;
  type: string | null;
  /** The JSON-RPC message: the body, or the data of an event stream's one event. */
  message: unknown;
  /** An event stream's framing without its data (one `message` event, as the SDK writes it). */
  framing: string | null;
  headers: Record<string, string>;
  /** Who answered: "sdk" (the SDK's per-request server), "fast" or "warm" (the pipeline itself). */
  lane: string;
}

/**
 * Headers that differ between any two answers (framing, the clock, the request's own id and time;
 * Miniflare's mark of a body it compressed, which it does to JSON bodies and not to event streams).
 */
const VARYING = new Set([
  "date",
  "content-length",
  "transfer-encoding",
  "mf-content-encoding",
  "connection",
  "keep-alive",
  "x-request-id",
  "server-timing",
]);

const LOOPBACK = /http:\/\/127\.0\.0\.1:\d+/g;

/** One case's call, as a client of this era sends it after its handshake. */
export async function callCase(
  send: Send,
  base: string,
  token: string,
  era: Era,
  c: ParityCase,
  path = "/mcp",
): Promise<ParityAnswer> {
  const meta = era === "modern" ? { _meta: ENVELOPE } : {};
  const params = c.notification ? meta : { name: c.tool, ...(c.args ? { arguments: c.args } : {}), ...meta };
  const method = c.notification ?? "tools/call";
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    ...(era === "modern"
      ? {
          "mcp-protocol-version": "2026-07-28",
          "mcp-method": method,
          ...(c.notification ? {} : { "mcp-name": c.tool }),
        }
      : { "mcp-protocol-version": "2025-11-25" }),
    ...c.headers,
  };
  const rpc = c.notification
    ? { jsonrpc: "2.0", method, ...(era === "modern" ? { params } : {}) }
    : { jsonrpc: "2.0", id: c.id ?? 1, method, params };
  const res = await send(`${base}${path}${c.query ?? ""}`, { method: "POST", headers, body: JSON.stringify(rpc) });
  const kept: Record<string, string> = {};
  // The host's own origin (in console links and challenges) differs from host to host; Miniflare's
  // Worker sees its own loopback address, whatever URL it was sent.
  const sameOrigin = (text: string) => text.replaceAll(base, "<origin>").replace(LOOPBACK, "<origin>");
  res.headers.forEach((value, name) => {
    if (!VARYING.has(name)) kept[name] = sameOrigin(value);
  });
  const body = sameOrigin((await res.text()).trim());
  const data = /^data: (.*)$/m.exec(body)?.[1];
  let message: unknown;
  try {
    message = JSON.parse(data ?? body);
  } catch {
    message = body;
  }
  return {
    status: res.status,
    type: res.headers.get("content-type"),
    message,
    framing: res.headers.get("content-type") === "text/event-stream" ? body.replace(/data: .*/, "") : null,
    headers: kept,
    lane: /lane;desc="(\w+)"/.exec(res.headers.get("server-timing") ?? "")?.[1] ?? "sdk",
  };
}

/** The headers of the SDK's stateless 2025 transport that only an event stream carries. */
const STREAM_HEADERS = ["content-type", "cache-control", "x-accel-buffering"];

/** An event stream's headers as a JSON body with the same message has them. */
export function asJsonHeaders(headers: Record<string, string>): Record<string, string> {
  const kept = Object.fromEntries(Object.entries(headers).filter(([name]) => !STREAM_HEADERS.includes(name)));
  return { ...kept, "content-type": "application/json" };
}

/**
 * The reference's answer as the pipeline gives it when the reference (the SDK's stateless 2025
 * transport) streamed one `message` event: the same message as one JSON body (see the pipeline's
 * encode.ts). Any other answer is compared as it came.
 */
function asPipelineFrames(reference: ParityAnswer, answer: ParityAnswer): ParityAnswer {
  const oneEvent = reference.type === "text/event-stream" && reference.framing === "event: message\n";
  if (!oneEvent || answer.lane === "sdk" || answer.type !== "application/json") return reference;
  return { ...reference, type: "application/json", framing: null, headers: asJsonHeaders(reference.headers) };
}

/** What differs between an answer and the reference's, in words; empty when they agree. */
export function differences(answer: ParityAnswer, sdkReference: ParityAnswer): string[] {
  const reference = asPipelineFrames(sdkReference, answer);
  const found: string[] = [];
  for (const key of ["status", "type", "message", "framing", "headers"] as const)
    if (!isDeepStrictEqual(answer[key], reference[key]))
      found.push(`${key}: ${JSON.stringify(answer[key])} where the reference has ${JSON.stringify(reference[key])}`);
  return found;
}

/**
 * The account every host's cases run against: two skills (one long enough for a second chunk),
 * and where an upstream is given, the server `up` with its tools approved, `issues` plan-safe for
 * list and get, and `image` switched off.
 */
export async function prepareParityAccount(
  account: Account,
  addServer?: (account: Account, slug: string) => Promise<void>,
): Promise<void> {
  const long = "A line of the long skill.\n".repeat(1200);
  for (const [name, instructions] of [
    ["review", "# Review\n\nRead the diff.\n"],
    ["long", long],
  ] as const) {
    const created = await account.rest("/v1/workspaces/me/skills", {
      method: "POST",
      body: {
        name,
        description: `The ${name} skill.`,
        instructions,
        files: [{ path: "notes.md", content: "Notes.\n" }],
      },
    });
    if (created.status !== 201) throw new Error(`skill ${name}: ${created.status} ${JSON.stringify(created.body)}`);
  }
  if (!addServer) return;
  await addServer(account, "up");
  for (const [tool, body] of [
    ["issues", { planSafeActions: ["list", "get"] }],
    ["image", { enabled: false }],
  ] as const) {
    const changed = await account.rest(`/v1/workspaces/me/servers/up/tools/${tool}`, { method: "PATCH", body });
    if (changed.status !== 200) throw new Error(`tool ${tool}: ${changed.status} ${JSON.stringify(changed.body)}`);
  }
}

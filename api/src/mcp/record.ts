import { callWorkspaceId } from "../domain/activity/call-workspace";
import { type Outcome, outcomeOfToolResult } from "../domain/activity/outcomes";
import { uiNegotiated } from "../domain/apps/ui";
import type { ActionContext } from "../services/context";
import { immediateRecorder, type McpCall } from "../services/mcp/call-log";
import type { McpSession } from "../services/mcp/catalog";
import { recordClient } from "../services/mcp/clients";
import { contentTypeOf, isWebReply, type McpContext, type McpReply } from "./exchange";
import { askableCapabilities } from "./legacy-session";
import type { ToolOutcome } from "./server";

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
/** The client's name and version: per request on 2026-07-28, in initialize on the 2025 revisions. */
export function clientOf(body: unknown): {
  name: string;
  version: string;
  protocolVersion: string | null;
  era: "modern" | "legacy";
  /** A 2025-era client's askable capabilities, declared in initialize (see legacy-session.ts). */
  capabilities?: Record<string, Record<string, unknown>>;
  /** A 2025-era client negotiated MCP Apps in initialize. */
  apps?: true;
} | null {
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
      ...withCapabilities(askableCapabilities(params?.capabilities)),
      ...(uiNegotiated(params?.capabilities) ? { apps: true as const } : {}),
    };
  }
  return null;
}

const withCapabilities = (capabilities: ReturnType<typeof askableCapabilities>) =>
  capabilities ? { capabilities } : {};

/** A client as the request names it (see clientOf). */
export type McpClient = NonNullable<ReturnType<typeof clientOf>>;

/** Records, after the answer, that this client was seen (the Connect page lists clients). */
export function noteClient(
  c: McpContext,
  ctx: ActionContext,
  client: McpClient,
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
export interface CallFacts {
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
export function logCall(
  c: McpContext,
  ctx: ActionContext,
  parsedBody: unknown,
  response: McpReply,
  facts: CallFacts,
): void {
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

import {
  CLIENT_CAPABILITIES_META_KEY,
  CLIENT_INFO_META_KEY,
  InMemoryTransport,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
  PROTOCOL_VERSION_META_KEY,
} from "@modelcontextprotocol/server";
import { listedFor } from "../domain/apps/ui";
import { chooseSession } from "../domain/mcp/session-choice";
import { listingTokens } from "../domain/mcp/tool-search";
import { silentLogger } from "../logger";
import type { EndpointView, ListingEstimate, ToolEstimates } from "../schemas/mcp";
import type { ActionContext } from "../services/context";
import type { McpSession } from "../services/mcp/catalog";
import { listEndpoints } from "../services/mcp/endpoints";
import { type ProxiedTool, proxiedCatalog } from "../services/mcp/proxied";
import type { ServerDeps } from "../services/servers/upstreams";
import { reachableWorkspaces } from "../services/workspaces/access";
import { sessionBuiltIns } from "./lazy-tools";
import type { LoadoutTool } from "./registry";
import { buildMcpServer } from "./server";

/*
 * What each of the caller's MCP URLs costs a client per turn, its full tools/list against its lazy
 * one, for the Connect page (GET /v1/endpoints/tool-estimates). This is MCP-layer work served over
 * REST: a listing is made of this layer's tool definitions (builtin-tools.ts, lazy-tools.ts) as the
 * SDK's server lists them (server.ts), and services are imported by this layer, never the reverse.
 * So rather than a second copy of any definition in services, this composes the definitions with
 * the services that decide a session (saved endpoints, chooseSession, reachable workspaces) and
 * pick its upstream catalog (proxiedCatalog), and the REST route only calls it.
 */

/** The caller's sessions' listings, estimated: the MCP URL as is, and each saved endpoint. */
export async function toolEstimates({ ctx, deps }: { ctx: ActionContext; deps: ServerDeps }): Promise<ToolEstimates> {
  const [endpoints, workspaces] = await Promise.all([
    listEndpoints({ ctx }),
    reachableWorkspaces(ctx.db, ctx.principal),
  ]);
  // Endpoints that pin the same mode, project and search and fetch setting list the same tools.
  const estimates = new Map<string, Promise<ListingEstimate>>();
  const estimateFor = (endpoint: Pick<EndpointView, "mode" | "project" | "searchFetch"> | null) => {
    const choice = chooseSession({
      consent: null,
      endpoint: endpoint && { mode: endpoint.mode, project: endpoint.project },
      request: { mode: null, project: null },
    });
    const session: McpSession = {
      principal: ctx.principal,
      workspaces,
      project: choice.project,
      mode: choice.mode,
      caches: deps.hot,
    };
    const searchFetch = endpoint?.searchFetch ?? false;
    const key = JSON.stringify([session.mode, session.project, searchFetch]);
    let estimate = estimates.get(key);
    if (!estimate) {
      estimate = estimateSession(ctx, session, searchFetch, deps);
      estimates.set(key, estimate);
    }
    return estimate;
  };
  const [defaults, saved] = await Promise.all([
    estimateFor(null),
    Promise.all(endpoints.map(async (endpoint) => ({ id: endpoint.id, ...(await estimateFor(endpoint)) }))),
  ]);
  return { default: defaults, endpoints: saved };
}

/**
 * One session's listings, normal and lazy, estimated from the definitions its tools/list answers
 * by a client that did not negotiate MCP Apps (most do not; to one that did, a tool with a view is
 * listed with it, and a tool only views may call is listed too).
 */
export async function estimateSession(
  ctx: ActionContext,
  session: McpSession,
  searchFetch: boolean,
  deps: ServerDeps,
): Promise<ListingEstimate> {
  const catalog = await proxiedCatalog(ctx.db, session, deps, ctx.logger ?? silentLogger, ctx.now);
  const listing = catalog.flatMap((t) => listedFor(false, t));
  const [full, lazy] = await Promise.all([
    listedTools(ctx, session, sessionBuiltIns(session, { searchFetch, lazy: false }, deps), listing),
    listedTools(ctx, session, sessionBuiltIns(session, { searchFetch, lazy: true }, deps), []),
  ]);
  return { full: listingTokens(full), lazy: listingTokens(lazy), tools: full.length };
}

/**
 * The tools a listing answers, asked of the SDK's own server for these tools (buildMcpServer, as
 * every MCP request builds it) in memory: the count is of what the SDK serializes, so a field the
 * SDK or server.ts adds to a listed definition is counted without being written down twice here.
 */
async function listedTools(
  ctx: ActionContext,
  session: McpSession,
  tools: LoadoutTool[],
  listing: ProxiedTool["definition"][],
): Promise<unknown[]> {
  const server = buildMcpServer(ctx, session, {
    instructions: null,
    origin: "",
    tools,
    ...(listing.length ? { listing } : {}),
    extension: false,
  });
  const [client, serverSide] = InMemoryTransport.createLinkedPair();
  try {
    const answer = new Promise<JSONRPCMessage>((resolve) => {
      client.onmessage = resolve;
    });
    await server.connect(serverSide);
    await client.start();
    await client.send({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/list",
      params: {
        _meta: {
          [PROTOCOL_VERSION_META_KEY]: LATEST_PROTOCOL_VERSION,
          [CLIENT_INFO_META_KEY]: { name: "loadout-estimate", version: "1" },
          [CLIENT_CAPABILITIES_META_KEY]: {},
        },
      },
    });
    const message = (await answer) as { result?: { tools?: unknown[] }; error?: { message?: string } };
    if (!message.result?.tools) throw new Error(`tools/list failed in memory: ${message.error?.message ?? "no tools"}`);
    return message.result.tools;
  } finally {
    await server.close();
  }
}

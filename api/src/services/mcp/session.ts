import type { Database } from "@loadout/db";
import { chooseSession } from "../../domain/mcp/session-choice";
import { AppError } from "../../errors";
import type { ResolvedBearer } from "../auth/resolve-bearer";
import type { ServerDeps } from "../servers/upstreams";
import type { McpSession } from "./catalog";
import { findEndpoint } from "./endpoints";
import type { SingleServer } from "./proxied";

/**
 * Everything of a request that its session is decided from, read once by the transport (see
 * mcp/session-inputs.ts): the bearer (by its cache key, never the secret), the URL (its path names
 * the endpoint or server, its query the mode and project), and the headers of host, scheme,
 * origin, project and mode. The session is decided from this object alone (decideSession), and
 * memoised under `sessionKey` of it: an input the decisions read is an input of the key, so the two
 * cannot drift apart.
 */
export interface SessionInputs {
  bearer: string;
  url: string;
  host: string;
  scheme: string;
  origin: string;
  mode: string;
  project: string;
}

/** The memo key of a session's inputs: every field, in the object's order, unambiguously. */
export function sessionKey(inputs: SessionInputs): string {
  return JSON.stringify(Object.values(inputs));
}

/** A session as the pipeline serves it: its rules' inputs, and what the URL named. */
export interface DecidedSession {
  session: McpSession;
  /** The saved endpoint the URL named (`/mcp/e/{id}`). */
  endpoint: { id: string; searchFetch: boolean; lazyTools: boolean } | null;
  /** The server a single-server URL named (`/mcp/s/{ws}/{slug}`), in the caller's workspace. */
  single: SingleServer | null;
  /** Whether the client's MCP roots may still name the project (see chooseSession). */
  rootsMayName: boolean;
  /** Lazy tools (`?tools=lazy`, or the saved endpoint's setting): upstream tools are found and called through find_tools and call_tool. */
  lazy: boolean;
}

/**
 * The session of an authenticated request: the saved endpoint or single server its URL names (another
 * user's endpoint, another tenant's workspace or server, are reported exactly like missing ones),
 * and its mode and project in the order DESIGN.md gives (see chooseSession).
 */
export async function decideSession(
  db: Database,
  servers: ServerDeps,
  resolved: ResolvedBearer,
  inputs: SessionInputs,
  target: { endpointId: string | null; single: { ws: string; slug: string } | null },
): Promise<DecidedSession> {
  const { principal } = resolved;
  let endpoint: {
    id: string;
    mode: McpSession["mode"];
    project: string | null;
    searchFetch: boolean;
    lazyTools: boolean;
  } | null = null;
  if (target.endpointId) {
    const id = target.endpointId;
    endpoint = await servers.hot.byUser(`endpoint\u0000${principal.userId}\u0000${id}`, principal.userId, () =>
      findEndpoint({ db, principal }, id),
    );
    if (!endpoint)
      throw new AppError("not_found", `Endpoint "${id}" was not found. Copy its URL again from the Connect page.`);
  }
  let single: SingleServer | null = null;
  if (target.single) {
    const { ws, slug } = target.single;
    const workspace = resolved.workspaces.find((w) =>
      ws === "me" ? w.kind === "personal" : w.slug === ws || w.id === ws,
    );
    if (!workspace) throw new AppError("not_found", `Server "${ws}/${slug}" was not found.`);
    single = { workspaceId: workspace.id, slug };
  }
  const query = inputs.url.includes("?") ? new URL(inputs.url).searchParams : null;
  const choice = chooseSession({
    consent: resolved.pins,
    endpoint: endpoint ? { mode: endpoint.mode, project: endpoint.project } : null,
    request: {
      mode: query?.get("mode") ?? (inputs.mode || null),
      project: query?.get("project") ?? (inputs.project || null),
    },
  });
  return {
    session: {
      principal,
      workspaces: resolved.workspaces,
      project: choice.project,
      mode: choice.mode,
      caches: servers.hot,
      servers,
    },
    endpoint: endpoint ? { id: endpoint.id, searchFetch: endpoint.searchFetch, lazyTools: endpoint.lazyTools } : null,
    single,
    rootsMayName: choice.rootsMayName,
    lazy: !single && (query?.get("tools") === "lazy" || Boolean(endpoint?.lazyTools)),
  };
}

import { type Database, mcpServerItems, mcpServers } from "@loadout/db";
import { UriTemplate } from "@modelcontextprotocol/server";
import { and, asc, eq, inArray, ne } from "drizzle-orm";
import { isRowActive } from "../../domain/activation";
import { exposedUri, itemWithheldBecause } from "../../domain/servers/items";
import type { ServerItemRow } from "../servers/items";
import type { ServerDeps, ServerRow } from "../servers/upstreams";
import type { McpSession } from "./catalog";
import { MAX_SERVERS_PER_SESSION, MAX_WATCHED_RESOURCES, type ResourceWatches, resourceWatches } from "./proxied";

/** One upstream item a session at /mcp may see, with its server and what the server's URIs become. */
export interface SessionItem {
  server: ServerRow;
  row: ServerItemRow;
  /** The team's slug for a team's server (its URIs are prefixed with it), else null. */
  team: string | null;
}

/**
 * The upstream resources, templates and prompts a session at /mcp may see: of its active servers
 * (enabled, in scope for its project, not failed, at most 16, in the catalog's order), each item
 * approved with its pin unchanged, enabled, and in plan and goal modes marked safe. Read from the
 * stored listings (as tools at /mcp are), in hand while the hot cache holds them. Skills are
 * served apart, through the Skills extension (sessionSkillItems).
 */
export function sessionItems(
  db: Database,
  deps: Pick<ServerDeps, "hot">,
  session: Pick<McpSession, "workspaces" | "project" | "mode">,
): SessionItem[] | Promise<SessionItem[]> {
  return servedItems(db, deps, session, "items");
}

/** The upstream skills a session at /mcp may see, under the same rules as its other items (see sessionItems). */
export function sessionSkillItems(
  db: Database,
  deps: Pick<ServerDeps, "hot">,
  session: Pick<McpSession, "workspaces" | "project" | "mode">,
): SessionItem[] | Promise<SessionItem[]> {
  return servedItems(db, deps, session, "skills");
}

function servedItems(
  db: Database,
  deps: Pick<ServerDeps, "hot">,
  session: Pick<McpSession, "workspaces" | "project" | "mode">,
  which: "items" | "skills",
): SessionItem[] | Promise<SessionItem[]> {
  const ids = session.workspaces.map((w) => w.id);
  if (ids.length === 0) return [];
  const key = `session_${which}\u0000${[...ids].sort().join(",")}\u0000${session.project ?? ""}\u0000${session.mode}`;
  return deps.hot.byWorkspaces(key, ids, async () => {
    const servers = (
      await db
        .select()
        .from(mcpServers)
        .where(and(inArray(mcpServers.workspaceId, ids), eq(mcpServers.enabled, true)))
        .orderBy(asc(mcpServers.createdAt), asc(mcpServers.slug))
    )
      .filter((s) => isRowActive(s, session.project))
      .slice(0, MAX_SERVERS_PER_SESSION)
      .filter((s) => s.status !== "failed");
    if (servers.length === 0) return [];
    const rows = await db
      .select()
      .from(mcpServerItems)
      .where(
        and(
          inArray(
            mcpServerItems.serverId,
            servers.map((s) => s.id),
          ),
          inArray(mcpServerItems.workspaceId, ids),
          which === "skills" ? eq(mcpServerItems.kind, "skill") : ne(mcpServerItems.kind, "skill"),
        ),
      )
      .orderBy(asc(mcpServerItems.kind), asc(mcpServerItems.position));
    const byId = new Map(servers.map((s) => [s.id, s]));
    const teams = new Map(session.workspaces.map((w) => [w.id, w.kind === "team" ? w.slug : null]));
    const order = new Map(servers.map((s, i) => [s.id, i]));
    return rows
      .filter((row) => itemWithheldBecause(row, session.mode) === null)
      .sort((a, b) => (order.get(a.serverId) ?? 0) - (order.get(b.serverId) ?? 0))
      .flatMap((row) => {
        const server = byId.get(row.serverId);
        return server ? [{ server, row, team: teams.get(row.workspaceId) ?? null }] : [];
      });
  });
}

/** A URI an upstream answered with, as clients at /mcp see it (the same rule as its listed items). */
export const exposedUriOf = (item: Pick<SessionItem, "server" | "team">, uri: string) =>
  exposedUri(uri, item.server.slug, item.team);

/** The upstream URI an exposed one names: a listed resource's by lookup, a template's expanded from its match. */
function upstreamUriOf(item: SessionItem, exposed: string): string | null {
  const { row } = item;
  if (row.kind === "resource") return row.exposedKey === exposed ? row.key : null;
  if (row.kind !== "template") return null;
  try {
    const variables = new UriTemplate(row.exposedKey).match(exposed);
    return variables ? new UriTemplate(row.key).expand(variables) : null;
  } catch {
    return null;
  }
}

/**
 * The resources a listen stream at /mcp may watch, named as clients there know them: each mapped
 * back by lookup to its server and upstream URI (never by parsing the name), watched there as at
 * /mcp/s (see resourceWatches), and its updates told under the name the client used.
 */
export async function sessionResourceWatches(
  db: Database,
  session: McpSession,
  deps: ServerDeps,
  items: SessionItem[],
  asked: readonly string[],
  now: Date,
  onFailed: (error: unknown) => void,
): Promise<ResourceWatches> {
  const byServer = new Map<string, { server: ServerRow; exposed: Map<string, string> }>();
  for (const exposed of [...new Set(asked)].slice(0, MAX_WATCHED_RESOURCES)) {
    for (const item of items) {
      const uri = upstreamUriOf(item, exposed);
      if (uri === null) continue;
      const group = byServer.get(item.server.id) ?? { server: item.server, exposed: new Map() };
      group.exposed.set(uri, exposed);
      byServer.set(item.server.id, group);
      break;
    }
  }
  const groups = await Promise.all(
    [...byServer.values()].map(async ({ server, exposed }) => ({
      exposed,
      watches: await resourceWatches(db, session, deps, server, [...exposed.keys()], now, onFailed),
    })),
  );
  const uris = groups.flatMap(({ exposed, watches }) => watches.uris.map((uri) => exposed.get(uri) as string));
  return {
    uris,
    start(onUpdated) {
      const stops = groups.map(({ exposed, watches }) =>
        watches.start((update) => {
          const uri = exposed.get(String(update.uri));
          if (uri !== undefined) onUpdated({ ...update, uri });
        }),
      );
      return () => {
        for (const stop of stops) stop();
      };
    },
  };
}

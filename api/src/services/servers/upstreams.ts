import { type Database, mcpServers, mcpServerTools, workspaces } from "@loadout/db";
import {
  type FetchGuard,
  guardedFetch,
  guardedPost,
  type RememberedChecks,
  type UpstreamPool,
  type UpstreamPost,
  type UpstreamTarget,
  type UpstreamTool,
  UpstreamUnavailable,
} from "@loadout/workers";
import { and, eq, notInArray, sql } from "drizzle-orm";
import { type SecretBox, SecretBoxError } from "../../auth/secret-box";
import { upstreamAddressProblem, upstreamUrlProblem } from "../../domain/servers/address-policy";
import { nameTools, toolDefinitionHash } from "../../domain/servers/tools";
import { urlSecretValues } from "../../domain/servers/url-secrets";
import type { HotCaches } from "../cache/hot";
import type { ProxiedTool } from "../mcp/proxied";
import { lockWorkspace } from "../workspaces/lock";
import { bumpCatalog } from "./catalog-version";
import type { CatalogCache, DefinitionCache } from "./definitions";

export type ServerRow = typeof mcpServers.$inferSelect;
export type ServerToolRow = typeof mcpServerTools.$inferSelect;

/** What the server actions and the MCP endpoint need to reach upstreams. */
export interface ServerDeps {
  box: SecretBox;
  allowLoopback: boolean;
  /** Null where this deployment cannot reach upstreams itself yet (Workers, until the proxy lands there). */
  pool: UpstreamPool | null;
  /** Upstream tools' input schemas and annotations, kept in memory between listings. */
  definitions: DefinitionCache;
  /** Whole listings, valid while their workspaces' catalog versions hold. */
  catalogs: CatalogCache<ProxiedTool[]>;
  /** What the MCP endpoint serves from memory while Postgres's change feed is live. */
  hot: HotCaches;
}

/** Binds a sealed value to its server and header, so a ciphertext moved elsewhere does not open. */
export const headerAd = (serverId: string, header: string) => `${serverId}:header:${header.toLowerCase()}`;
/** Binds a sealed URL to its server. */
export const urlAd = (serverId: string) => `${serverId}:url`;

/** What the SSRF guard checks for upstreams: https only, public addresses only. */
function upstreamGuard(resolveHost: (host: string) => Promise<string[]>, allowLoopback: boolean): FetchGuard {
  const options = { allowLoopback };
  return {
    urlProblem: (url) => upstreamUrlProblem(url, options),
    addressProblem: (ip) => upstreamAddressProblem(ip, options),
    resolve: resolveHost,
  };
}

/** The SSRF-guarded fetch for upstreams: https only, public addresses only, each redirect checked. */
export function upstreamFetch(
  resolveHost: (host: string) => Promise<string[]>,
  allowLoopback: boolean,
  base: typeof fetch = fetch,
) {
  return guardedFetch(upstreamGuard(resolveHost, allowLoopback), base);
}

/** The same guard over a plain POST (warm calls: see UpstreamPool.callDirect). */
export function upstreamPost(
  resolveHost: (host: string) => Promise<string[]>,
  allowLoopback: boolean,
  base: UpstreamPost,
  remember?: RememberedChecks,
): UpstreamPost {
  return guardedPost(upstreamGuard(resolveHost, allowLoopback), base, remember);
}

/**
 * Targets opened from server rows, by row object: a row served from the hot cache is the same
 * object call after call, so its secrets are opened once rather than on every call. A changed
 * server is a new row (and a new generation), so nothing stale is reused; a row read per request
 * (Workers, caches off) simply misses.
 */
const opened = new WeakMap<ServerRow, Promise<UpstreamTarget>>();

/** The target of a row, opened once per row object (see `opened`). */
export function openedTarget(row: ServerRow, box: SecretBox): Promise<UpstreamTarget> {
  let target = opened.get(row);
  if (!target) {
    target = targetOf(row, box);
    opened.set(row, target);
    // A failure to open is not kept: the next call tries again (and reports it).
    target.catch(() => opened.delete(row));
  }
  return target;
}

export async function targetOf(row: ServerRow, box: SecretBox): Promise<UpstreamTarget> {
  const headers: Record<string, string> = {};
  for (const [name, sealed] of Object.entries(row.headers))
    headers[name] = await box.open(sealed, headerAd(row.id, name));
  return {
    id: row.id,
    generation: row.generation,
    name: row.slug,
    url: row.urlSealed ? await box.open(row.urlSealed, urlAd(row.id)) : row.url,
    transport: row.transport,
    headers,
    callTimeoutMs: row.callTimeoutMs,
  };
}

/** An error message fit to store and show: at most 500 characters, with no header value in it. */
export function safeMessage(error: unknown, target: UpstreamTarget): string {
  let message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  for (const value of Object.values(target.headers))
    if (value.length >= 8) message = message.split(value).join("[secret]");
  for (const value of urlSecretValues(target.url)) message = message.split(value).join("[secret]");
  return message;
}

export interface StoredTools {
  rows: ServerToolRow[];
  refused: { name: string; reason: string }[];
}

/**
 * Stores a server's tool list as the upstream gave it now: definitions and hashes are replaced,
 * the user's settings (enabled, plan-safe actions, the approved pin) are kept, tools the upstream
 * no longer offers are removed. The server's status becomes ok.
 */
export async function storeTools(
  db: Database,
  server: ServerRow,
  listing: { tools: UpstreamTool[]; truncated: boolean },
  now: Date,
): Promise<StoredTools> {
  // A team's server's tools carry the team's slug, so they never share a name with a member's own.
  const [owner] = await db
    .select({ kind: workspaces.kind, slug: workspaces.slug })
    .from(workspaces)
    .where(eq(workspaces.id, server.workspaceId));
  const { named, refused } = nameTools(server.slug, listing.tools, owner?.kind === "team" ? owner.slug : null);
  const rows = named.map(({ tool, exposedName }, position) => ({
    serverId: server.id,
    workspaceId: server.workspaceId,
    name: tool.name,
    exposedName,
    position,
    title: tool.title ?? (typeof tool.annotations?.title === "string" ? tool.annotations.title : null),
    description: tool.description ?? "",
    inputSchema: tool.inputSchema ?? { type: "object" },
    annotations: tool.annotations ?? {},
    outputSchema: tool.outputSchema ?? null,
    hash: toolDefinitionHash({ name: tool.name, description: tool.description ?? "", inputSchema: tool.inputSchema }),
    updatedAt: now,
  }));
  const stored = await db.transaction(async (tx) => {
    await lockWorkspace(tx, server.workspaceId);
    const names = rows.map((r) => r.name);
    await tx
      .delete(mcpServerTools)
      .where(
        names.length
          ? and(eq(mcpServerTools.serverId, server.id), notInArray(mcpServerTools.name, names))
          : eq(mcpServerTools.serverId, server.id),
      );
    const result = rows.length
      ? await tx
          .insert(mcpServerTools)
          .values(rows)
          .onConflictDoUpdate({
            target: [mcpServerTools.serverId, mcpServerTools.name],
            set: {
              exposedName: sql`excluded.exposed_name`,
              position: sql`excluded.position`,
              title: sql`excluded.title`,
              description: sql`excluded.description`,
              inputSchema: sql`excluded.input_schema`,
              annotations: sql`excluded.annotations`,
              outputSchema: sql`excluded.output_schema`,
              hash: sql`excluded.hash`,
              updatedAt: sql`excluded.updated_at`,
            },
          })
          .returning()
      : [];
    await tx
      .update(mcpServers)
      .set({
        toolsFetchedAt: now,
        toolsTruncated: listing.truncated,
        status: "ok",
        lastError: null,
        checkedAt: now,
      })
      .where(and(eq(mcpServers.id, server.id), eq(mcpServers.generation, server.generation)));
    await bumpCatalog(tx, server.workspaceId);
    return result;
  });
  return { rows: stored.sort((a, b) => a.position - b.position), refused };
}

/** Records a failed handshake: the server stays failed until it is edited or tested. */
export async function markFailed(db: Database, server: ServerRow, message: string, now: Date) {
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, server.workspaceId);
    await tx
      .update(mcpServers)
      .set({ status: "failed", lastError: message, checkedAt: now })
      .where(and(eq(mcpServers.id, server.id), eq(mcpServers.generation, server.generation)));
    await bumpCatalog(tx, server.workspaceId);
  });
}

/**
 * Fetches a server's tools from the upstream and stores them. A failure marks the server failed
 * and is returned as the error (never thrown), with header values scrubbed from it.
 */
export async function refreshTools(
  db: Database,
  server: ServerRow,
  deps: ServerDeps,
  now: Date,
  options: { fresh?: boolean; markFailures?: boolean } = {},
): Promise<{ stored: StoredTools | null; error: string | null }> {
  const pool = deps.pool;
  if (!pool) return { stored: null, error: "this deployment cannot reach remote servers yet" };
  let target: UpstreamTarget;
  try {
    target = await targetOf(server, deps.box);
  } catch (error) {
    // A secret sealed under a key this deployment no longer has: the server cannot be reached.
    if (!(error instanceof SecretBoxError)) throw error;
    if (options.markFailures !== false) await markFailed(db, server, error.message, now);
    return { stored: null, error: error.message };
  }
  if (options.fresh) pool.drop(server.id);
  try {
    const listing = await pool.listTools(target);
    return { stored: await storeTools(db, server, listing, now), error: null };
  } catch (error) {
    if (!(error instanceof UpstreamUnavailable)) throw error;
    const message = safeMessage(error, target);
    if (options.markFailures !== false) await markFailed(db, server, message, now);
    return { stored: null, error: message };
  }
}

/**
 * Stores the list an upstream announced (`tools/list_changed`) for the server and generation it
 * was heard on; a server changed since (another generation) keeps its own.
 */
export async function storeAnnouncedTools(
  db: Database,
  target: Pick<UpstreamTarget, "id" | "generation">,
  tools: UpstreamTool[],
  now: Date,
): Promise<void> {
  const [row] = await db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.id, target.id), eq(mcpServers.generation, target.generation)));
  if (row) await storeTools(db, row, { tools, truncated: false }, now);
}

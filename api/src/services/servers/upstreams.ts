import { type Database, mcpServers, mcpServerTools, workspaces } from "@loadout/db";
import {
  type FetchGuard,
  guardedFetch,
  guardedPost,
  type RememberedChecks,
  type UpstreamPost,
  type UpstreamProxy,
  type UpstreamTarget,
  type UpstreamTool,
  UpstreamUnauthorized,
  UpstreamUnavailable,
} from "@loadout/workers";
import { and, eq, notInArray, sql } from "drizzle-orm";
import { type SecretBox, SecretBoxError } from "../../auth/secret-box";
import { toolViewOf } from "../../domain/apps/ui";
import { upstreamAddressProblem, upstreamUrlProblem } from "../../domain/servers/address-policy";
import { nameTools, toolDefinitionHash } from "../../domain/servers/tools";
import { urlSecretValues } from "../../domain/servers/url-secrets";
import type { Logger } from "../../logger";
import type { PolledFreshness } from "../cache/freshness";
import type { HotCaches } from "../cache/hot";
import type { ChangeFeedClient } from "../cache/stamps";
import type { ProxiedTool } from "../mcp/proxied";
import { lockWorkspace } from "../workspaces/lock";
import { bumpCatalog } from "./catalog-version";
import { type CredentialActor, isRefusal, withCredentials } from "./credentials";
import type { CatalogCache, DefinitionCache } from "./definitions";
import { listUpstreamItems, storeItems } from "./items";
import { adoptOAuth } from "./oauth/adopt";
import { serverAtGeneration } from "./server-at";

export { headerAd, openedTarget, targetOf, urlAd } from "./targets";

export type ServerRow = typeof mcpServers.$inferSelect;
export type ServerToolRow = typeof mcpServerTools.$inferSelect;

/** What the server actions and the MCP endpoint need to reach upstreams. */
export interface ServerDeps {
  box: SecretBox;
  allowLoopback: boolean;
  /** The upstream proxy (see UpstreamProxy); null where this host has none, which then serves no upstream tool. */
  pool: UpstreamProxy | null;
  /** Upstream tools' input schemas and annotations, kept in memory between listings. */
  definitions: DefinitionCache;
  /** Whole listings, valid while their workspaces' catalog versions hold. */
  catalogs: CatalogCache<ProxiedTool[]>;
  /** What the MCP endpoint serves from memory while Postgres's change feed is live. */
  hot: HotCaches;
  /**
   * Where no change feed runs (Workers): the freshness each MCP request polls its user's and
   * workspaces' counters into, for its view of `hot` (see PolledFreshness).
   */
  polled?: PolledFreshness;
  /** Where the polled counters come from before Postgres: a change feed held elsewhere (Workers' ChangeFeed). */
  changeFeed?: ChangeFeedClient;
  /**
   * Loadout as an upstream's OAuth client: the SSRF-guarded fetch and guard for discovery and token
   * requests, and the configured public URL (the console link in a "connect first" answer).
   * Absent where this deployment has no resolver for the guard.
   */
  oauth?: { fetch: typeof fetch; guard: FetchGuard; publicUrl: string | null };
  /** Where a listing's left-out entries are told (an invalid skill, one over the cap). */
  logger?: Logger;
  /** Aborted when the host begins to shut down: a 2025 client's GET stream ends (see legacy-listen.ts). */
  closing?: AbortSignal;
}

/** What the SSRF guard checks for upstreams: https only, public addresses only. */
export function upstreamGuard(resolveHost: (host: string) => Promise<string[]>, allowLoopback: boolean): FetchGuard {
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

/** An error message fit to store and show: at most 500 characters, with no header value in it. */
export function safeMessage(error: unknown, target: UpstreamTarget): string {
  let message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
  for (const value of Object.values(target.headers)) {
    if (value.length >= 8) message = message.split(value).join("[secret]");
    // A bearer (an OAuth connection's, or one pasted as a header) may be quoted without its scheme.
    const token = /^Bearer\s+(\S{8,})$/i.exec(value)?.[1];
    if (token) message = message.split(token).join("[secret]");
  }
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
  const rows = named.map(({ tool, exposedName }, position) => {
    const ui = toolViewOf(tool._meta);
    return {
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
      ui,
      hash: toolDefinitionHash({
        name: tool.name,
        description: tool.description ?? "",
        inputSchema: tool.inputSchema,
        ui,
      }),
      updatedAt: now,
    };
  });
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
              ui: sql`excluded.ui`,
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
export async function markFailed(
  db: Database,
  hot: Pick<HotCaches, "wroteHere">,
  server: ServerRow,
  message: string,
  now: Date,
) {
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, server.workspaceId);
    await tx
      .update(mcpServers)
      .set({ status: "failed", lastError: message, checkedAt: now })
      .where(and(eq(mcpServers.id, server.id), eq(mcpServers.generation, server.generation)));
    await bumpCatalog(tx, server.workspaceId);
  });
  // Read back by the next request here, whatever the notification's delay (HotCaches.wroteHere).
  hot.wroteHere();
}

/**
 * Fetches a server's tools from the upstream and stores them. A failure marks the server failed
 * and is returned as the error (never thrown), with header values scrubbed from it. An OAuth
 * server is asked with the actor's sign-in (none: nothing is asked); a server without credentials
 * that answers 401 is looked into for OAuth (see oauth/adopt.ts): then the error says to connect,
 * and the server is not marked failed, since it works for whoever signs in.
 */
export async function refreshTools(
  db: Database,
  server: ServerRow,
  deps: ServerDeps,
  now: Date,
  options: { fresh?: boolean; markFailures?: boolean; actor?: CredentialActor } = {},
): Promise<{ stored: StoredTools | null; error: string | null; needsSignIn?: boolean }> {
  const pool = deps.pool;
  if (!pool) return { stored: null, error: "this host runs no upstream proxy, so it cannot reach remote servers" };
  const marking = options.markFailures !== false;
  if (server.oauth && !options.actor) return { stored: null, error: "needs sign-in", needsSignIn: true };
  let target: UpstreamTarget | undefined;
  try {
    const listing = await withCredentials(
      db,
      deps,
      server,
      options.actor ?? { userId: "", workspaceParam: "me", now },
      async (t) => {
        target = t;
        // Fresh (Test): the target's session is opened again, so its handshake is what is judged.
        const tools = await pool.listTools(t, { fresh: options.fresh === true });
        // What it offers besides tools is listed on the same connection; a server that fails to
        // list them keeps its tools (and its items as they were).
        const items = await listUpstreamItems(pool, t, undefined, (kind, key, reason) =>
          deps.logger?.log("warn", "an upstream's entry was left out of its listing", {
            server: server.id,
            kind,
            key: key.slice(0, 300),
            reason,
          }),
        ).catch(() => null);
        return { ...tools, items };
      },
    );
    if (isRefusal(listing)) return { stored: null, error: listing.refusal, needsSignIn: true };
    const stored = await storeTools(db, server, listing, now);
    if (listing.items) await storeItems(db, server, listing.items, now);
    return { stored, error: null };
  } catch (error) {
    // A secret sealed under a key this deployment no longer has: the server cannot be reached.
    if (error instanceof SecretBoxError) {
      if (marking) await markFailed(db, deps.hot, server, error.message, now);
      return { stored: null, error: error.message };
    }
    if (!(error instanceof UpstreamUnavailable)) throw error;
    if (
      error instanceof UpstreamUnauthorized &&
      error.status === 401 &&
      !server.oauth &&
      target &&
      !hasAuthorization(target)
    ) {
      const adopted = await adoptOAuth(db, deps, server, target.url, error.challenge, now);
      if ("needsSignIn" in adopted) return { stored: null, error: adopted.needsSignIn, needsSignIn: true };
      if ("unusable" in adopted) {
        if (marking) await markFailed(db, deps.hot, server, adopted.unusable, now);
        return { stored: null, error: adopted.unusable };
      }
    }
    const message = target ? safeMessage(error, target) : error.message.slice(0, 500);
    if (marking) await markFailed(db, deps.hot, server, message, now);
    return { stored: null, error: message };
  }
}

/** Whether the user configured credentials of their own (then a 401 means they are wrong, not OAuth). */
const hasAuthorization = (target: UpstreamTarget) =>
  Object.keys(target.headers).some((name) => name.toLowerCase() === "authorization");

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
  const row = await serverAtGeneration(db, target);
  if (row) await storeTools(db, row, { tools, truncated: false }, now);
}

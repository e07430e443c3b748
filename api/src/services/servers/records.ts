import { type Database, mcpServers, mcpServerTools, newId } from "@loadout/db";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { type SecretBox, SecretBoxError } from "../../auth/secret-box";
import { activationState, normalizeScope, parseScope } from "../../domain/activation";
import { upstreamUrlProblem } from "../../domain/servers/address-policy";
import { parseMcpImport, placeholdersIn } from "../../domain/servers/mcp-import";
import { serverSlugProblem } from "../../domain/servers/tool-names";
import { maskUrlSecrets } from "../../domain/servers/url-secrets";
import { AppError, notFound } from "../../errors";
import type { ServerView, UpdateServerInput } from "../../schemas/servers";
import { recordEvent } from "../audit";
import type { ActionContext } from "../context";
import { resolveWorkspace } from "../workspaces/access";
import { lockWorkspace } from "../workspaces/lock";
import { bumpCatalog } from "./catalog-version";
import { headerAd, type ServerDeps, urlAd } from "./upstreams";

export { headerAd, type ServerDeps } from "./upstreams";

type Row = typeof mcpServers.$inferSelect;

export interface ToolCounts {
  total: number;
  /** New or changed tools waiting for the user's review. */
  pending: number;
}

/** How many tools each server has cached, and how many wait for review. */
export async function toolCounts(db: Database, serverIds: string[]): Promise<Map<string, ToolCounts>> {
  const counts = new Map<string, ToolCounts>();
  if (serverIds.length === 0) return counts;
  const rows = await db
    .select({
      serverId: mcpServerTools.serverId,
      total: sql<number>`count(*)::int`,
      pending: sql<number>`(count(*) filter (where ${mcpServerTools.approvedHash} is distinct from ${mcpServerTools.hash}))::int`,
    })
    .from(mcpServerTools)
    .where(inArray(mcpServerTools.serverId, serverIds))
    .groupBy(mcpServerTools.serverId);
  for (const r of rows) counts.set(r.serverId, { total: Number(r.total), pending: Number(r.pending) });
  return counts;
}

/**
 * What the console shows for a header's value: that one is set, and not one of its characters.
 * Even a prefix narrows a short key down, and tells what kind of credential it is.
 */
export const HEADER_SET = "(set)";

/** What the console shows for a header value no configured key opens. */
export const UNREADABLE = "(cannot be read: enter it again)";

export async function viewOf(
  row: Row,
  box: SecretBox,
  counts: ToolCounts = { total: 0, pending: 0 },
): Promise<ServerView> {
  const headers: Record<string, string> = {};
  const placeholders: { header: string; placeholder: string }[] = [];
  for (const [name, sealed] of Object.entries(row.headers)) {
    // Opened only to tell whether it still holds a pasted placeholder (and that it opens at all).
    let value: string;
    try {
      value = await box.open(sealed, headerAd(row.id, name));
    } catch (error) {
      // Sealed under a key this deployment no longer has: the server says so when used or tested.
      if (!(error instanceof SecretBoxError)) throw error;
      headers[name] = UNREADABLE;
      continue;
    }
    headers[name] = HEADER_SET;
    for (const placeholder of placeholdersIn(value)) placeholders.push({ header: name, placeholder });
  }
  const scope = { mode: row.scopeMode, projects: row.scopeProjects };
  return {
    id: row.id,
    slug: row.slug,
    label: row.label,
    description: row.description,
    url: row.url,
    urlMasked: row.urlSealed !== null,
    transport: row.transport,
    headers,
    placeholders,
    auth: row.oauth ? "oauth" : Object.keys(row.headers).length ? "headers" : "none",
    credentials: row.oauth,
    enabled: row.enabled,
    scope,
    state: activationState(row.enabled, scope),
    callTimeoutMs: row.callTimeoutMs,
    status: row.status,
    lastError: row.lastError,
    checkedAt: row.checkedAt?.toISOString() ?? null,
    toolsFetchedAt: row.toolsFetchedAt?.toISOString() ?? null,
    toolsTruncated: row.toolsTruncated,
    tools: counts,
    revision: row.revision,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** A slug proposed from a pasted name: `GitHub Copilot` → `github-copilot`. */
export function slugFromName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 32)
    .replace(/-+$/, "");
}

async function seal(
  box: SecretBox,
  serverId: string,
  headers: Record<string, string>,
): Promise<Record<string, string>> {
  const sealed: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) sealed[name] = await box.seal(value, headerAd(serverId, name));
  return sealed;
}

/**
 * Imports a pasted `mcpServers` block: every good entry becomes a server (headers sealed), every
 * other one is reported with its reason; the whole import is one transaction and one audit event each.
 */
export async function importServers({
  ctx,
  ws,
  text,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  text: string;
  deps: ServerDeps;
}) {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const parsed = parseMcpImport(text);
  if (parsed.problem)
    throw new AppError("invalid_request", parsed.problem, { details: [{ path: "text", message: parsed.problem }] });
  const skipped = [...parsed.skipped];
  const rows: { row: Row }[] = [];
  const existing = new Set(
    (
      await ctx.db.select({ slug: mcpServers.slug }).from(mcpServers).where(eq(mcpServers.workspaceId, workspace.id))
    ).map((r) => r.slug),
  );
  // Slugs this paste takes, by the name that took them: a later clash is with the paste, not the workspace.
  const fromPaste = new Map<string, string>();
  for (const server of parsed.servers) {
    const slug = slugFromName(server.name);
    const slugProblem = serverSlugProblem(slug);
    const urlProblem = upstreamUrlProblem(server.url, { allowLoopback: deps.allowLoopback });
    if (slugProblem)
      skipped.push({ name: server.name, reason: `the name gives the slug "${slug}", which ${slugProblem}` });
    else if (urlProblem) skipped.push({ name: server.name, reason: urlProblem });
    else if (fromPaste.has(slug))
      skipped.push({
        name: server.name,
        reason: `"${fromPaste.get(slug)}" earlier in this paste also gives the slug "${slug}"; rename one of them`,
      });
    else if (existing.has(slug))
      skipped.push({ name: server.name, reason: `a server "${slug}" exists in this workspace; edit it instead` });
    else {
      fromPaste.set(slug, server.name);
      const id = newId("server", ctx.now.getTime());
      rows.push({
        row: {
          id,
          workspaceId: workspace.id,
          slug,
          label: server.name,
          description: "",
          url: maskUrlSecrets(server.url),
          urlSealed: maskUrlSecrets(server.url) === server.url ? null : await deps.box.seal(server.url, urlAd(id)),
          transport: server.transport,
          headers: await seal(deps.box, id, server.headers),
          oauth: null,
          oauthIssuer: null,
          oauthMetadata: null,
          oauthScope: null,
          oauthClientId: null,
          oauthClientSecret: null,
          enabled: server.enabled,
          scopeMode: "global",
          scopeProjects: [],
          callTimeoutMs: 60_000,
          toolsFetchedAt: null,
          toolsTruncated: false,
          generation: 1,
          status: "unknown",
          lastError: null,
          checkedAt: null,
          revision: 1,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        },
      });
    }
  }
  if (rows.length > 0) {
    await ctx.db.transaction(async (tx) => {
      await tx.insert(mcpServers).values(rows.map((r) => r.row));
      await bumpCatalog(tx, workspace.id);
      for (const { row } of rows) {
        await recordEvent(tx, ctx, {
          workspaceId: workspace.id,
          action: "server.imported",
          targetType: "server",
          targetId: row.id,
          data: { slug: row.slug, url: row.url },
        });
      }
    });
  }
  const imported = await Promise.all(rows.map(({ row }) => viewOf(row, deps.box)));
  return { imported, skipped };
}

export async function listServers({
  ctx,
  ws,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  deps: ServerDeps;
}): Promise<ServerView[]> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const rows = await ctx.db
    .select()
    .from(mcpServers)
    .where(eq(mcpServers.workspaceId, workspace.id))
    .orderBy(asc(mcpServers.slug));
  const counts = await toolCounts(
    ctx.db,
    rows.map((r) => r.id),
  );
  return Promise.all(rows.map((r) => viewOf(r, deps.box, counts.get(r.id))));
}

async function shownUrl(ctx: ActionContext, workspaceId: string, slug: string): Promise<string | null> {
  const [row] = await ctx.db
    .select({ url: mcpServers.url })
    .from(mcpServers)
    .where(and(eq(mcpServers.workspaceId, workspaceId), eq(mcpServers.slug, slug)))
    .limit(1);
  return row?.url ?? null;
}

export async function findServer(db: Database, workspaceId: string, slug: string, forUpdate = false): Promise<Row> {
  const query = db
    .select()
    .from(mcpServers)
    .where(and(eq(mcpServers.workspaceId, workspaceId), eq(mcpServers.slug, slug)))
    .limit(1);
  const [row] = forUpdate ? await query.for("update") : await query;
  if (!row) throw notFound(`Server "${slug}"`);
  return row;
}

export async function getServer({
  ctx,
  ws,
  slug,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  deps: ServerDeps;
}): Promise<ServerView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const row = await findServer(ctx.db, workspace.id, slug);
  return viewOf(row, deps.box, (await toolCounts(ctx.db, [row.id])).get(row.id));
}

/**
 * Edits a server. Changing what it is (URL, transport, headers) resets its status to unknown, so
 * the proxy connects afresh; label, description, scope and enabled do not.
 */
export async function updateServer({
  ctx,
  ws,
  slug,
  input,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  input: UpdateServerInput;
  deps: ServerDeps;
}): Promise<ServerView> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  // The shown URL sent back unchanged (its secrets masked) keeps the sealed one.
  const newUrl =
    input.url !== undefined && input.url !== (await shownUrl(ctx, workspace.id, slug)) ? input.url : undefined;
  if (newUrl !== undefined) {
    const problem = upstreamUrlProblem(newUrl, { allowLoopback: deps.allowLoopback });
    if (problem)
      throw new AppError("invalid_request", `url: ${problem}`, { details: [{ path: "url", message: problem }] });
  }
  const scope = input.scope === undefined ? undefined : parseScope(input.scope);
  if (scope === null)
    throw new AppError("invalid_request", "scope is not valid: give { mode, projects }.", {
      details: [{ path: "scope", message: "not valid" }],
    });
  let generationBefore = 0;
  const row = await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const current = await findServer(tx, workspace.id, slug, true);
    generationBefore = current.generation;
    if (current.revision !== input.revision) {
      throw new AppError(
        "conflict",
        `Server "${slug}" changed since you loaded it (you edited revision ${input.revision}; it is at ${current.revision}). Reload it and apply your change again.`,
        {
          details: [{ path: "revision", message: `current revision is ${current.revision}` }],
        },
      );
    }
    const headers = { ...current.headers };
    for (const [name, value] of Object.entries(input.headers ?? {})) {
      if (value === null) delete headers[name];
      else headers[name] = await deps.box.seal(value, headerAd(current.id, name));
    }
    const identityChanged =
      newUrl !== undefined ||
      (input.transport !== undefined && input.transport !== current.transport) ||
      input.headers !== undefined;
    const normalized = scope ? normalizeScope(scope) : undefined;
    const [updated] = await tx
      .update(mcpServers)
      .set({
        label: input.label ?? current.label,
        description: input.description ?? current.description,
        ...(newUrl !== undefined
          ? {
              url: maskUrlSecrets(newUrl),
              urlSealed: maskUrlSecrets(newUrl) === newUrl ? null : await deps.box.seal(newUrl, urlAd(current.id)),
            }
          : {}),
        transport: input.transport ?? current.transport,
        headers,
        enabled: input.enabled ?? current.enabled,
        ...(normalized ? { scopeMode: normalized.mode, scopeProjects: normalized.projects } : {}),
        callTimeoutMs: input.callTimeoutMs ?? current.callTimeoutMs,
        // A new identity is a new server to the proxy: its connection and cached tool list go
        // (the user's per-tool settings and pins stay, keyed by tool name). Any edit lifts a
        // failed status, so the next session tries again.
        ...(identityChanged
          ? { generation: current.generation + 1, toolsFetchedAt: null, status: "unknown" as const, lastError: null }
          : current.status === "failed"
            ? { status: "unknown" as const }
            : {}),
        revision: current.revision + 1,
        updatedAt: ctx.now,
      })
      .where(and(eq(mcpServers.id, current.id), eq(mcpServers.workspaceId, workspace.id)))
      .returning();
    await bumpCatalog(tx, workspace.id);
    // The audit names what changed, never a header value.
    const changed = Object.keys(input).filter((k) => k !== "revision");
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.updated",
      targetType: "server",
      targetId: current.id,
      data: { slug, changed, headers: Object.keys(input.headers ?? {}) },
    });
    return updated;
  });
  if (!row) throw notFound(`Server "${slug}"`);
  if (row.generation !== generationBefore) deps.pool?.drop(row.id);
  return viewOf(row, deps.box, (await toolCounts(ctx.db, [row.id])).get(row.id));
}

export async function removeServer({
  ctx,
  ws,
  slug,
  revision,
  deps,
}: {
  ctx: ActionContext;
  ws: string;
  slug: string;
  revision: number;
  deps: ServerDeps;
}): Promise<void> {
  const workspace = await resolveWorkspace(ctx.db, ctx.principal, ws);
  const id = await ctx.db.transaction(async (tx) => {
    await lockWorkspace(tx, workspace.id);
    const current = await findServer(tx, workspace.id, slug, true);
    if (current.revision !== revision) {
      throw new AppError("conflict", `Server "${slug}" changed since you loaded it; reload it first.`, {
        details: [{ path: "revision", message: `current revision is ${current.revision}` }],
      });
    }
    await tx.delete(mcpServers).where(and(eq(mcpServers.id, current.id), eq(mcpServers.workspaceId, workspace.id)));
    await bumpCatalog(tx, workspace.id);
    await recordEvent(tx, ctx, {
      workspaceId: workspace.id,
      action: "server.removed",
      targetType: "server",
      targetId: current.id,
      data: { slug },
    });
    return current.id;
  });
  deps.pool?.drop(id);
}

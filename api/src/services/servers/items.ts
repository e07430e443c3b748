import { type Database, mcpServerItems, type mcpServers, workspaces } from "@loadout/db";
import type { UpstreamTarget } from "@loadout/workers";
import { and, asc, eq, notInArray, sql } from "drizzle-orm";
import { isViewUri, VIEW_DIGEST_KEY, viewContentDigest } from "../../domain/apps/ui";
import {
  exposedItemKey,
  ITEM_KINDS,
  ITEM_LISTINGS,
  itemHash,
  itemKey,
  offersKind,
  type ServerItemKind,
} from "../../domain/servers/items";
import { upstreamSkillProblem } from "../../domain/servers/upstream-skills";
import type { HotCaches } from "../cache/hot";
import { lockWorkspace } from "../workspaces/lock";
import { bumpCatalog } from "./catalog-version";
import { serverAtGeneration } from "./server-at";

/** A server's row (as upstreams.ts names it; not imported from there, which imports this module). */
type ServerRow = typeof mcpServers.$inferSelect;

export type ServerItemRow = typeof mcpServerItems.$inferSelect;

/** Items of one kind a server may offer at most; the rest are not served (as tools past 64). */
export const MAX_ITEMS_PER_KIND = 256;

/** What an upstream listed now, by kind: only the kinds it offers (a kind it does not offer is absent). */
export type ItemListing = Partial<Record<ServerItemKind, Record<string, unknown>[]>>;

/** How long listing a server's items may take in all; a kind not listed whole by then keeps what was stored. */
export const ITEMS_LISTING_BUDGET_MS = 15_000;

/**
 * Lists and stores again the items of the server and generation an upstream announced a change of
 * (`prompts/list_changed`, `resources/list_changed`) on, through the connection that heard it; a
 * server changed since (another generation) keeps its own. A changed item is withheld until
 * approved, as on Test, and the stored change reaches every listening client (its trigger).
 */
export async function storeAnnouncedItems(
  db: Database,
  pool: Parameters<typeof listUpstreamItems>[0],
  target: UpstreamTarget,
  now: Date,
): Promise<void> {
  const row = await serverAtGeneration(db, target);
  if (row) await storeItems(db, row, await listUpstreamItems(pool, target), now);
}

/**
 * Every resource, template, prompt and skill the upstream offers, page by page up to the cap (a
 * skill only when it declared the skills extension, and only a valid entry). Kinds it
 * does not declare are not asked for; a kind not listed whole within the time budget is left out
 * (its stored items stay as they were), so a slow or endless listing never holds Test up.
 */
export async function listUpstreamItems(
  pool: {
    request(target: UpstreamTarget, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
    capabilities(target: UpstreamTarget): Promise<Record<string, unknown>>;
  },
  target: UpstreamTarget,
  budgetMs = ITEMS_LISTING_BUDGET_MS,
  skipped?: SkippedItem,
): Promise<ItemListing> {
  const deadline = Date.now() + budgetMs;
  const capabilities = await pool.capabilities(target);
  const skills = offersKind("skill", capabilities);
  const listing: ItemListing = {};
  for (const kind of ITEM_KINDS) {
    const { method, field } = ITEM_LISTINGS[kind];
    if (!offersKind(kind, capabilities)) continue;
    const items: Record<string, unknown>[] = [];
    let cursor: string | undefined;
    let whole = true;
    do {
      if (Date.now() > deadline) {
        whole = false;
        break;
      }
      const page = await pool.request(target, method, cursor ? { cursor } : {});
      const listed = Array.isArray(page[field]) ? (page[field] as Record<string, unknown>[]) : [];
      items.push(...listed.filter((item) => item && typeof item === "object" && served(kind, item, skipped)));
      cursor = typeof page.nextCursor === "string" && page.nextCursor ? page.nextCursor : undefined;
    } while (cursor && items.length < MAX_ITEMS_PER_KIND);
    if (!whole) continue;
    for (const item of items.slice(MAX_ITEMS_PER_KIND))
      skipped?.(kind, itemKey(kind, item) ?? "", `over the cap of ${MAX_ITEMS_PER_KIND} per server`);
    listing[kind] = items.slice(0, MAX_ITEMS_PER_KIND);
  }
  // A server that serves skills has its `skill://` resources served as their skills' files, each
  // checked against the approved manifest (see services/mcp/upstream-skills.ts), never as plain
  // resources that a read would pass through unchecked.
  await recordViewDigests(pool, target, listing.resource ?? [], deadline);
  if (skills)
    for (const kind of ["resource", "template"] as const) {
      const items = listing[kind];
      if (items) listing[kind] = items.filter((item) => !(itemKey(kind, item) ?? "").startsWith("skill://"));
    }
  return listing;
}

/** At most this many of a server's views have their content read and pinned when it is listed. */
const MAX_PINNED_VIEWS = 16;

/**
 * Reads each listed view (a `ui://` resource) and records its content digest in its definition,
 * so that the item's pin covers what the view shows (a changed view is withheld until approved).
 * A view not read (over the cap, past the budget, a failed read) has none and is not served.
 */
async function recordViewDigests(
  pool: {
    request(target: UpstreamTarget, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>>;
  },
  target: UpstreamTarget,
  resources: Record<string, unknown>[],
  deadline: number,
): Promise<void> {
  const views = resources.filter((r) => isViewUri(r.uri)).slice(0, MAX_PINNED_VIEWS);
  await Promise.all(
    views.map(async (view) => {
      if (Date.now() > deadline) return;
      const read = await pool.request(target, "resources/read", { uri: view.uri }).catch(() => null);
      if (read) view[VIEW_DIGEST_KEY] = viewContentDigest(read);
    }),
  );
}

/** Told of an entry a listing leaves out, with the reason (an invalid skill entry, one over the cap). */
export type SkippedItem = (kind: ServerItemKind, key: string, reason: string) => void;

/** Whether a listed entry is kept: every resource, template and prompt, a skill only when valid (upstreamSkillProblem). */
function served(kind: ServerItemKind, item: Record<string, unknown>, skipped: SkippedItem | undefined): boolean {
  if (kind !== "skill") return true;
  const problem = upstreamSkillProblem(item);
  if (problem) skipped?.(kind, typeof item.uri === "string" ? item.uri : "", problem);
  return problem === null;
}

async function teamOf(db: Database, server: Pick<ServerRow, "workspaceId">): Promise<string | null> {
  const [owner] = await db
    .select({ kind: workspaces.kind, slug: workspaces.slug })
    .from(workspaces)
    .where(eq(workspaces.id, server.workspaceId));
  return owner?.kind === "team" ? owner.slug : null;
}

function rowsOf(
  server: ServerRow,
  team: string | null,
  kind: ServerItemKind,
  items: Record<string, unknown>[],
  now: Date,
) {
  const seen = new Set<string>();
  const rows: (typeof mcpServerItems.$inferInsert)[] = [];
  for (const definition of items) {
    const key = itemKey(kind, definition);
    if (key === null || seen.has(key)) continue;
    seen.add(key);
    rows.push({
      serverId: server.id,
      workspaceId: server.workspaceId,
      kind,
      key,
      exposedKey: exposedItemKey(kind, key, server.slug, team),
      position: rows.length,
      definition,
      hash: itemHash(kind, definition),
      updatedAt: now,
    });
  }
  return rows;
}

const CURRENT = {
  // Listed again: what was found when it was last used is checked anew.
  problem: sql`null`,
  exposedKey: sql`excluded.exposed_key`,
  definition: sql`excluded.definition`,
  hash: sql`excluded.hash`,
  updatedAt: sql`excluded.updated_at`,
};

/**
 * Stores what a server offers besides tools, as a full listing (on Test and first use): each
 * kind listed is replaced, the user's settings (enabled, plan-safe, the approved pin) kept, items
 * no longer offered removed. A kind the listing lacks is left as it was.
 */
export async function storeItems(db: Database, server: ServerRow, listing: ItemListing, now: Date): Promise<void> {
  const team = await teamOf(db, server);
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, server.workspaceId);
    for (const kind of ITEM_KINDS) {
      const items = listing[kind];
      if (!items) continue;
      const rows = rowsOf(server, team, kind, items, now);
      const keys = rows.map((r) => r.key);
      await tx
        .delete(mcpServerItems)
        .where(
          and(
            eq(mcpServerItems.serverId, server.id),
            eq(mcpServerItems.kind, kind),
            ...(keys.length ? [notInArray(mcpServerItems.key, keys)] : []),
          ),
        );
      if (rows.length)
        await tx
          .insert(mcpServerItems)
          .values(rows)
          .onConflictDoUpdate({
            target: [mcpServerItems.serverId, mcpServerItems.kind, mcpServerItems.key],
            set: { ...CURRENT, position: sql`excluded.position` },
          });
    }
    await bumpCatalog(tx, server.workspaceId);
  });
}

/**
 * Notes what one page of a live listing showed: an item never seen is stored as new and a changed
 * one gets its new hash, both withheld until reviewed. Nothing is removed (a page is not the list).
 */
export async function noteListedItems(
  db: Database,
  server: ServerRow,
  kind: ServerItemKind,
  items: Record<string, unknown>[],
  known: ServerItemRow[],
  now: Date,
): Promise<void> {
  const team = await teamOf(db, server);
  const byKey = new Map(known.filter((r) => r.kind === kind).map((r) => [r.key, r]));
  const base = known.filter((r) => r.kind === kind).length;
  const rows = rowsOf(server, team, kind, items, now)
    .filter((row) => byKey.get(row.key)?.hash !== row.hash)
    .map((row, i) => ({ ...row, position: byKey.get(row.key)?.position ?? base + i }));
  if (rows.length === 0) return;
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, server.workspaceId);
    await tx
      .insert(mcpServerItems)
      .values(rows)
      .onConflictDoUpdate({ target: [mcpServerItems.serverId, mcpServerItems.kind, mcpServerItems.key], set: CURRENT });
    await bumpCatalog(tx, server.workspaceId);
  });
}

/** A server's items, in hand while the hot cache holds them. */
export function serverItems(
  db: Database,
  hot: HotCaches,
  server: Pick<ServerRow, "id" | "workspaceId">,
): ServerItemRow[] | Promise<ServerItemRow[]> {
  return hot.byWorkspaces(`server_items\u0000${server.id}`, [server.workspaceId], () =>
    db
      .select()
      .from(mcpServerItems)
      .where(and(eq(mcpServerItems.serverId, server.id), eq(mcpServerItems.workspaceId, server.workspaceId)))
      .orderBy(asc(mcpServerItems.kind), asc(mcpServerItems.position)),
  );
}

/** An item's key and current hash, or null when it has no key. */
export function itemKeyOf(
  kind: ServerItemKind,
  definition: Record<string, unknown>,
): { key: string; hash: string } | null {
  const key = itemKey(kind, definition);
  return key === null ? null : { key, hash: itemHash(kind, definition) };
}

/**
 * Withholds an approved item for what Loadout found using it (an upstream skill's file whose bytes
 * did not match its manifest), until the server's items are listed again; under the workspace's
 * lock, as every write of its servers' rows; the invalidation trigger tells every instance.
 */
export async function recordItemProblem(
  db: Database,
  row: Pick<ServerItemRow, "serverId" | "workspaceId" | "kind" | "key">,
  problem: string,
): Promise<void> {
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, row.workspaceId);
    await tx
      .update(mcpServerItems)
      .set({ problem: problem.slice(0, 500) })
      .where(
        and(
          eq(mcpServerItems.serverId, row.serverId),
          eq(mcpServerItems.kind, row.kind),
          eq(mcpServerItems.key, row.key),
        ),
      );
  });
}

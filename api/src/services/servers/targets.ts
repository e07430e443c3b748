import type { mcpServers } from "@loadout/db";
import type { UpstreamTarget } from "@loadout/workers";
import type { SecretBox } from "../../auth/secret-box";

type ServerRow = typeof mcpServers.$inferSelect;

/** Binds a sealed value to its server and header, so a ciphertext moved elsewhere does not open. */
export const headerAd = (serverId: string, header: string) => `${serverId}:header:${header.toLowerCase()}`;
/** Binds a sealed URL to its server. */
export const urlAd = (serverId: string) => `${serverId}:url`;

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

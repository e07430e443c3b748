import { createSecretBox, deploymentKeys } from "../auth/secret-box";
import { PolledFreshness } from "../services/cache/freshness";
import { HotCaches } from "../services/cache/hot";
import { CatalogCache, DefinitionCache } from "../services/servers/definitions";
import { storeAnnouncedItems } from "../services/servers/items";
import { type ServerDeps, storeAnnouncedTools, upstreamFetch, upstreamGuard } from "../services/servers/upstreams";
import type { AppDeps } from "./env";

/**
 * What the server routes and the MCP endpoint share: the box that seals header values, the URL
 * policy, and the pool of upstream connections. An upstream's `tools/list_changed` (and its prompts' and
 * resources') refreshes the cached list in Postgres, where every instance reads it.
 */
export function createServerDeps(deps: AppDeps): ServerDeps {
  const pool = deps.upstreamPool ?? null;
  pool?.setToolsChangedHandler((target, tools) => {
    const { db, release } = deps.database.acquire();
    const work = storeAnnouncedTools(db, target, tools, new Date())
      .catch((error: unknown) =>
        deps.logger.log("error", "upstream tools refresh failed", { server: target.id, error: String(error) }),
      )
      .finally(() => release());
    void work;
  });
  pool?.setItemsChangedHandler?.((target) => {
    const { db, release } = deps.database.acquire();
    void storeAnnouncedItems(db, pool, target, new Date())
      .catch((error: unknown) =>
        deps.logger.log("error", "upstream items refresh failed", { server: target.id, error: String(error) }),
      )
      .finally(() => release());
  });
  const allowLoopback = deps.allowLoopbackUpstreams ?? false;
  const resolveHost = deps.resolveHost;
  return {
    ...(resolveHost
      ? {
          oauth: {
            fetch: upstreamFetch(resolveHost, allowLoopback),
            guard: upstreamGuard(resolveHost, allowLoopback),
            publicUrl: deps.publicUrl ?? null,
          },
        }
      : {}),
    box: createSecretBox(deploymentKeys(deps.secretKey, deps.previousSecretKeys), { purpose: "server-headers" }),
    allowLoopback,
    pool,
    definitions: new DefinitionCache(),
    catalogs: new CatalogCache(),
    hot: new HotCaches(deps.freshness ?? null),
    logger: deps.logger,
    ...(deps.closing ? { closing: deps.closing } : {}),
    // Without a change feed each MCP request polls its counters instead (Workers).
    ...(deps.freshness ? {} : { polled: new PolledFreshness() }),
    ...(deps.changeFeed && !deps.freshness ? { changeFeed: deps.changeFeed } : {}),
  };
}

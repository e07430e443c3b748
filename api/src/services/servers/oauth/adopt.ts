import { type Database, mcpServers } from "@loadout/db";
import { and, eq } from "drizzle-orm";
import { lockWorkspace } from "../../workspaces/lock";
import { bumpCatalog } from "../catalog-version";
import type { ServerDeps, ServerRow } from "../upstreams";
import { discoverServerAuth, OAuthUnusable } from "./discovery";

/**
 * A server without credentials answered 401 (on Test or first use): discovery tells whether it
 * signs in with OAuth. If it does, the server becomes an OAuth server (each member connects their
 * own account until an admin shares one) and the answer says to connect; if it cannot be used,
 * why (the caller marks it failed with that reason); if nothing says it does OAuth, so.
 */
export async function adoptOAuth(
  db: Database,
  deps: ServerDeps,
  server: ServerRow,
  url: string,
  challenge: string | null,
  now: Date,
): Promise<{ needsSignIn: string } | { unusable: string } | { notOAuth: true }> {
  let found: Awaited<ReturnType<typeof discoverServerAuth>>;
  try {
    found = await discoverServerAuth(deps, url, challenge);
  } catch (error) {
    if (error instanceof OAuthUnusable) return error.notOAuth ? { notOAuth: true } : { unusable: error.message };
    throw error;
  }
  await db.transaction(async (tx) => {
    await lockWorkspace(tx, server.workspaceId);
    await tx
      .update(mcpServers)
      .set({
        oauth: server.oauth ?? "per-user",
        oauthIssuer: found.issuer,
        oauthScope: found.scope,
        oauthMetadata: found.metadata as Record<string, unknown>,
        status: "unknown",
        lastError: null,
        checkedAt: now,
      })
      .where(and(eq(mcpServers.id, server.id), eq(mcpServers.generation, server.generation)));
    await bumpCatalog(tx, server.workspaceId);
  });
  return {
    needsSignIn: `needs sign-in: ${server.slug} signs in with OAuth at ${found.issuer}; press Connect to sign in with your account`,
  };
}

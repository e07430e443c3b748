import { oauthClients, oauthGrants, workspaces } from "@loadout/db";
import { and, desc, eq, isNull, type SQL } from "drizzle-orm";
import { notFound } from "../../errors";
import type { ConnectedAppView } from "../../schemas/oauth";
import type { ActionContext } from "../context";
import { clientDomain } from "./clients";
import { revokeGrant } from "./grants";

function mine(ctx: ActionContext): SQL[] {
  const conditions: SQL[] = [eq(oauthGrants.userId, ctx.principal.userId), isNull(oauthGrants.revokedAt)];
  // A token narrowed to a workspace sees only the connections narrowed to that workspace.
  if (ctx.principal.workspaceId) conditions.push(eq(oauthGrants.workspaceId, ctx.principal.workspaceId));
  return conditions;
}

/** The caller's connected apps (live OAuth grants), newest first. */
export async function listConnectedApps({ ctx }: { ctx: ActionContext }): Promise<ConnectedAppView[]> {
  const rows = await ctx.db
    .select({
      id: oauthGrants.id,
      resource: oauthGrants.resource,
      scopes: oauthGrants.scopes,
      project: oauthGrants.project,
      mode: oauthGrants.mode,
      createdAt: oauthGrants.createdAt,
      lastUsedAt: oauthGrants.lastUsedAt,
      workspaceSlug: workspaces.slug,
      workspaceName: workspaces.name,
      client: {
        clientId: oauthClients.clientId,
        kind: oauthClients.kind,
        name: oauthClients.name,
        clientUri: oauthClients.clientUri,
        redirectUris: oauthClients.redirectUris,
      },
    })
    .from(oauthGrants)
    .innerJoin(oauthClients, eq(oauthClients.id, oauthGrants.clientRef))
    .leftJoin(workspaces, eq(workspaces.id, oauthGrants.workspaceId))
    .where(and(...mine(ctx)))
    .orderBy(desc(oauthGrants.id))
    .limit(500);
  return rows.map((r) => ({
    id: r.id,
    client: {
      name: r.client.name,
      kind: r.client.kind,
      clientId: r.client.clientId,
      uri: r.client.clientUri,
      ...clientDomain(r.client),
    },
    resource: r.resource,
    scopes: r.scopes,
    workspace: r.workspaceSlug ? { slug: r.workspaceSlug, name: r.workspaceName ?? r.workspaceSlug } : null,
    project: r.project,
    mode: r.mode,
    createdAt: r.createdAt.toISOString(),
    lastUsedAt: r.lastUsedAt?.toISOString() ?? null,
  }));
}

/** Disconnects an app: its grant and every token of it stop working at once. */
export async function revokeConnectedApp({ ctx, input }: { ctx: ActionContext; input: { id: string } }): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    const [grant] = await tx
      .select({ id: oauthGrants.id, userId: oauthGrants.userId, workspaceId: oauthGrants.workspaceId })
      .from(oauthGrants)
      .where(and(eq(oauthGrants.id, input.id), ...mine(ctx)))
      .limit(1);
    if (!grant) throw notFound(`Connected app "${input.id}"`);
    await revokeGrant(tx, grant, "user", ctx);
  });
}

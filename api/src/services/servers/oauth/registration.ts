import { type Database, newId, upstreamOAuthRegistrations } from "@loadout/db";
import {
  type AuthorizationServerMetadata,
  cappedFetch,
  type OAuthClientInformationMixed,
  registerClient,
} from "@loadout/workers";
import { and, eq } from "drizzle-orm";
import type { SecretBox } from "../../../auth/secret-box";
import { chooseRegistration, clientMetadata, metadataDocumentUrl } from "../../../domain/upstream-oauth/registration";
import type { ServerRow } from "../upstreams";
import { OAuthUnusable } from "./discovery";

/** Binds a sealed client secret to its registration (or, pasted, to its server). */
export const registrationSecretAd = (id: string) => `${id}:oauth-client-secret`;

export interface ClientIdentity {
  client: OAuthClientInformationMixed;
  registrationId: string | null;
  kind: "pasted" | "metadata-document" | "dynamic";
}

/**
 * Loadout's client identity at an issuer, in the spec's order: the client pasted on the server;
 * Loadout's client ID metadata document where the server accepts one; a dynamic registration,
 * kept per issuer and callback and made once; else OAuthUnusable saying what the server needs.
 */
export async function clientIdentity(
  db: Database,
  box: SecretBox,
  input: {
    server: ServerRow;
    issuer: string;
    metadata: AuthorizationServerMetadata;
    origin: string;
    allowLoopback: boolean;
    fetch: typeof fetch;
    now: Date;
  },
): Promise<ClientIdentity> {
  const { server, issuer, metadata, origin, now } = input;
  const redirectUri = `${origin}/oauth/upstream/callback`;
  const choice = chooseRegistration({
    pastedClientId: server.oauthClientId,
    metadata,
    metadataDocumentUrl: metadataDocumentUrl(origin, input.allowLoopback),
  });
  if (choice.kind === "none") throw new OAuthUnusable(`Loadout cannot sign in at ${issuer}: ${choice.problem}.`);
  if (choice.kind === "pasted") {
    const secret = server.oauthClientSecret
      ? await box.open(server.oauthClientSecret, registrationSecretAd(server.id))
      : undefined;
    return {
      client: { client_id: server.oauthClientId ?? "", ...(secret ? { client_secret: secret } : {}) },
      registrationId: null,
      kind: "pasted",
    };
  }
  const [existing] = await db
    .select()
    .from(upstreamOAuthRegistrations)
    .where(and(eq(upstreamOAuthRegistrations.issuer, issuer), eq(upstreamOAuthRegistrations.redirectUri, redirectUri)))
    .limit(1);
  if (choice.kind === "metadata-document") {
    if (existing?.kind === "metadata-document" && existing.clientId === choice.clientId)
      return { client: { client_id: choice.clientId }, registrationId: existing.id, kind: choice.kind };
    const id = existing?.id ?? newId("upstreamRegistration", now.getTime());
    await save(db, { id, issuer, redirectUri, kind: choice.kind, clientId: choice.clientId, clientSecret: null, now });
    return { client: { client_id: choice.clientId }, registrationId: id, kind: choice.kind };
  }
  if (existing?.kind === "dynamic") {
    const secret = existing.clientSecret
      ? await box.open(existing.clientSecret, registrationSecretAd(existing.id))
      : null;
    return {
      client: { client_id: existing.clientId, ...(secret ? { client_secret: secret } : {}) },
      registrationId: existing.id,
      kind: "dynamic",
    };
  }
  let registered: Awaited<ReturnType<typeof registerClient>>;
  try {
    registered = await registerClient(issuer, {
      metadata,
      clientMetadata: clientMetadata(origin),
      fetchFn: cappedFetch(input.fetch),
    });
  } catch (error) {
    throw new OAuthUnusable(
      `${issuer} refused Loadout's registration (${error instanceof Error ? error.message.slice(0, 200) : "no reason given"}); register a client there yourself and paste its client ID.`,
    );
  }
  const id = existing?.id ?? newId("upstreamRegistration", now.getTime());
  await save(db, {
    id,
    issuer,
    redirectUri,
    kind: "dynamic",
    clientId: registered.client_id,
    clientSecret: registered.client_secret ? await box.seal(registered.client_secret, registrationSecretAd(id)) : null,
    now,
  });
  return {
    client: {
      client_id: registered.client_id,
      ...(registered.client_secret ? { client_secret: registered.client_secret } : {}),
    },
    registrationId: id,
    kind: "dynamic",
  };
}

/** Drops a dynamic registration the authorization server refused, so the next Connect registers anew. */
export async function forgetRegistration(ctx: { db: Database }, id: string): Promise<void> {
  await ctx.db
    .delete(upstreamOAuthRegistrations)
    .where(and(eq(upstreamOAuthRegistrations.id, id), eq(upstreamOAuthRegistrations.kind, "dynamic")));
}

/** The client a connection was made with, for refresh and revocation. */
export async function connectionClient(
  db: Database,
  box: SecretBox,
  server: ServerRow,
  connection: { clientId: string; registrationId: string | null },
): Promise<OAuthClientInformationMixed> {
  if (!connection.registrationId) {
    const secret =
      server.oauthClientSecret && server.oauthClientId === connection.clientId
        ? await box.open(server.oauthClientSecret, registrationSecretAd(server.id))
        : undefined;
    return { client_id: connection.clientId, ...(secret ? { client_secret: secret } : {}) };
  }
  const [row] = await db
    .select()
    .from(upstreamOAuthRegistrations)
    .where(eq(upstreamOAuthRegistrations.id, connection.registrationId))
    .limit(1);
  const secret = row?.clientSecret ? await box.open(row.clientSecret, registrationSecretAd(row.id)) : undefined;
  return { client_id: connection.clientId, ...(secret ? { client_secret: secret } : {}) };
}

async function save(
  db: Database,
  row: {
    id: string;
    issuer: string;
    redirectUri: string;
    kind: "metadata-document" | "dynamic";
    clientId: string;
    clientSecret: string | null;
    now: Date;
  },
) {
  const values = { kind: row.kind, clientId: row.clientId, clientSecret: row.clientSecret, updatedAt: row.now };
  await db
    .insert(upstreamOAuthRegistrations)
    .values({ id: row.id, issuer: row.issuer, redirectUri: row.redirectUri, createdAt: row.now, ...values })
    .onConflictDoUpdate({
      target: [upstreamOAuthRegistrations.issuer, upstreamOAuthRegistrations.redirectUri],
      set: values,
    });
}

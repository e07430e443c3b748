import { type Database, mcpServers, upstreamOAuthConnections, upstreamOAuthRegistrations } from "@loadout/db";
import { and, eq, isNotNull } from "drizzle-orm";
import { type SecretBox, SecretBoxError, sealedKeyId } from "../../../auth/secret-box";
import { tokenAd } from "../credentials";
import type { ResealOutcome } from "../reseal";
import { registrationSecretAd } from "./registration";

/** A value under the current key: as it is when it already is, else opened and sealed again. */
async function under(box: SecretBox, value: string, associatedData: string): Promise<string> {
  if (sealedKeyId(value) === box.keyId) return value;
  return box.seal(await box.open(value, associatedData), associatedData);
}

/**
 * The upstream OAuth secrets sealed under an earlier key, sealed again under the current one, as
 * resealServerSecrets does for header values: connections' tokens, Loadout's registrations'
 * client secrets, and clients pasted on servers. Each row is written only while its sealed values
 * are still the ones read (a refresh meanwhile wins). Sign-ins in progress live ten minutes and
 * are left to expire.
 */
export async function resealUpstreamOAuthSecrets(db: Database, box: SecretBox): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, unopenable: 0 };
  const attempt = async (work: () => Promise<boolean>) => {
    try {
      if (await work()) outcome.resealed++;
    } catch (error) {
      if (!(error instanceof SecretBoxError)) throw error;
      outcome.unopenable++;
    }
  };
  for (const row of await db.select().from(upstreamOAuthConnections)) {
    const stale = [row.accessToken, row.refreshToken].some((v) => v !== null && sealedKeyId(v) !== box.keyId);
    if (!stale) continue;
    await attempt(async () => {
      const accessToken = await under(box, row.accessToken, tokenAd(row.serverId, row.owner, "access"));
      const refreshToken =
        row.refreshToken === null
          ? null
          : await under(box, row.refreshToken, tokenAd(row.serverId, row.owner, "refresh"));
      const written = await db
        .update(upstreamOAuthConnections)
        .set({ accessToken, refreshToken })
        .where(and(eq(upstreamOAuthConnections.id, row.id), eq(upstreamOAuthConnections.accessToken, row.accessToken)))
        .returning({ id: upstreamOAuthConnections.id });
      return written.length > 0;
    });
  }
  for (const row of await db
    .select()
    .from(upstreamOAuthRegistrations)
    .where(isNotNull(upstreamOAuthRegistrations.clientSecret))) {
    const secret = row.clientSecret;
    if (secret === null || sealedKeyId(secret) === box.keyId) continue;
    await attempt(async () => {
      const clientSecret = await under(box, secret, registrationSecretAd(row.id));
      const written = await db
        .update(upstreamOAuthRegistrations)
        .set({ clientSecret })
        .where(and(eq(upstreamOAuthRegistrations.id, row.id), eq(upstreamOAuthRegistrations.clientSecret, secret)))
        .returning({ id: upstreamOAuthRegistrations.id });
      return written.length > 0;
    });
  }
  for (const row of await db
    .select({ id: mcpServers.id, secret: mcpServers.oauthClientSecret })
    .from(mcpServers)
    .where(isNotNull(mcpServers.oauthClientSecret))) {
    const secret = row.secret;
    if (secret === null || sealedKeyId(secret) === box.keyId) continue;
    await attempt(async () => {
      const oauthClientSecret = await under(box, secret, registrationSecretAd(row.id));
      const written = await db
        .update(mcpServers)
        .set({ oauthClientSecret })
        .where(and(eq(mcpServers.id, row.id), eq(mcpServers.oauthClientSecret, secret)))
        .returning({ id: mcpServers.id });
      return written.length > 0;
    });
  }
  return outcome;
}

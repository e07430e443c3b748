import { type Database, mcpServers } from "@loadout/db";
import { and, asc, eq, gt, isNull, sql } from "drizzle-orm";
import { type SecretBox, SecretBoxError, sealedKeyId } from "../../auth/secret-box";
import { headerAd, urlAd } from "./upstreams";

/** Rows read per query: the scan runs once at start-up over every workspace's servers. */
const PAGE = 500;

export interface ResealOutcome {
  /** Servers whose secrets now name the current key. */
  resealed: number;
  /** Servers with a secret no configured key opens: left as they are; they say so when used. */
  unopenable: number;
}

/**
 * Re-seals under the current key every server secret (header values, a URL holding a secret)
 * sealed under an earlier LOADOUT_SECRET_KEY, so that the earlier key can then be dropped from
 * LOADOUT_PREVIOUS_SECRET_KEYS. A system task, not a user's edit: no audit event, no generation
 * change (the plaintext is the same, so connections and cached tools stay).
 *
 * Each row is written only while its sealed values are still the ones read: an edit made
 * meanwhile wins, and it seals under the current key itself.
 */
export async function resealServerSecrets(db: Database, box: SecretBox): Promise<ResealOutcome> {
  const outcome: ResealOutcome = { resealed: 0, unopenable: 0 };
  for (let after = ""; ; ) {
    const rows = await db
      .select({ id: mcpServers.id, headers: mcpServers.headers, urlSealed: mcpServers.urlSealed })
      .from(mcpServers)
      .where(gt(mcpServers.id, after))
      .orderBy(asc(mcpServers.id))
      .limit(PAGE);
    for (const row of rows) {
      const sealed = [...Object.values(row.headers), ...(row.urlSealed === null ? [] : [row.urlSealed])];
      if (sealed.every((value) => sealedKeyId(value) === box.keyId)) continue;
      let headers: Record<string, string>;
      let urlSealed: string | null;
      try {
        headers = {};
        for (const [name, value] of Object.entries(row.headers))
          headers[name] = await resealed(box, value, headerAd(row.id, name));
        urlSealed = row.urlSealed === null ? null : await resealed(box, row.urlSealed, urlAd(row.id));
      } catch (error) {
        if (!(error instanceof SecretBoxError)) throw error;
        outcome.unopenable++;
        continue;
      }
      const written = await db
        .update(mcpServers)
        .set({ headers, urlSealed })
        .where(
          and(
            eq(mcpServers.id, row.id),
            sql`${mcpServers.headers} = ${JSON.stringify(row.headers)}::jsonb`,
            row.urlSealed === null ? isNull(mcpServers.urlSealed) : eq(mcpServers.urlSealed, row.urlSealed),
          ),
        )
        .returning({ id: mcpServers.id });
      if (written.length > 0) outcome.resealed++;
    }
    const last = rows.at(-1);
    if (!last || rows.length < PAGE) return outcome;
    after = last.id;
  }
}

/** A value under the current key: as it is when it already is, else opened and sealed again. */
async function resealed(box: SecretBox, value: string, associatedData: string): Promise<string> {
  if (sealedKeyId(value) === box.keyId) return value;
  return box.seal(await box.open(value, associatedData), associatedData);
}

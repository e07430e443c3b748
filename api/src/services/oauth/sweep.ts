import { type Database, oauthAuthorizations, oauthClients, oauthGrants, oauthTokens } from "@loadout/db";
import { and, eq, lt, notExists } from "drizzle-orm";

/** Rows this far past their expiry count for nothing any more (a replayed code or token is refused as unknown). */
const SWEEP_AGE_MS = 24 * 60 * 60 * 1000;
const SWEEP_PROBABILITY = 0.01;
/** A registered client that never got (or no longer has) a grant this long after registering goes. */
const UNUSED_CLIENT_AGE_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * Deletes authorization requests, codes and tokens long expired, and registered clients never
 * used, now and then, so abandoned consents, rotated tokens and registration spam do not grow the
 * tables for ever.
 */
export async function maybeSweepOAuth(db: Database, now: Date, probability = SWEEP_PROBABILITY): Promise<void> {
  if (Math.random() >= probability) return;
  const cutoff = new Date(now.getTime() - SWEEP_AGE_MS);
  await db.delete(oauthAuthorizations).where(lt(oauthAuthorizations.expiresAt, cutoff));
  await db.delete(oauthTokens).where(lt(oauthTokens.expiresAt, cutoff));
  // Dynamic registration is anonymous: clients nobody connected with would pile up otherwise.
  // Grants (even revoked ones) keep their client, for the audit trail of Connected apps.
  await db
    .delete(oauthClients)
    .where(
      and(
        eq(oauthClients.kind, "dynamic"),
        lt(oauthClients.createdAt, new Date(now.getTime() - UNUSED_CLIENT_AGE_MS)),
        notExists(
          db.select({ id: oauthGrants.id }).from(oauthGrants).where(eq(oauthGrants.clientRef, oauthClients.id)),
        ),
        notExists(
          db
            .select({ id: oauthAuthorizations.id })
            .from(oauthAuthorizations)
            .where(eq(oauthAuthorizations.clientRef, oauthClients.id)),
        ),
      ),
    );
}

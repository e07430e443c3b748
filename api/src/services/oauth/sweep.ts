import { type Database, oauthAuthorizations, oauthTokens } from "@loadout/db";
import { lt } from "drizzle-orm";

/** Rows this far past their expiry count for nothing any more (a replayed code or token is refused as unknown). */
const SWEEP_AGE_MS = 24 * 60 * 60 * 1000;
const SWEEP_PROBABILITY = 0.01;

/**
 * Deletes authorization requests, codes and tokens long expired, now and then, so abandoned
 * consents and rotated tokens do not grow the tables for ever.
 */
export async function maybeSweepOAuth(db: Database, now: Date, probability = SWEEP_PROBABILITY): Promise<void> {
  if (Math.random() >= probability) return;
  const cutoff = new Date(now.getTime() - SWEEP_AGE_MS);
  await db.delete(oauthAuthorizations).where(lt(oauthAuthorizations.expiresAt, cutoff));
  await db.delete(oauthTokens).where(lt(oauthTokens.expiresAt, cutoff));
}

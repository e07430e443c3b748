import { type Database, rateLimits } from "@loadout/db";
import { eq, lt, sql } from "drizzle-orm";

export interface RateLimitRule {
  /** Most hits allowed in one window. */
  limit: number;
  windowSeconds: number;
}

export const LOGIN_PER_ACCOUNT: RateLimitRule = { limit: 10, windowSeconds: 15 * 60 };
export const LOGIN_PER_ADDRESS: RateLimitRule = { limit: 50, windowSeconds: 15 * 60 };
export const SIGNUP_PER_ADDRESS: RateLimitRule = { limit: 20, windowSeconds: 60 * 60 };
/** Signed-out looks at an invite link (which team, which address): a person opens a few; a guesser many. */
export const INVITE_LOOKUP_PER_ADDRESS: RateLimitRule = { limit: 30, windowSeconds: 15 * 60 };

export interface RateLimitResult {
  allowed: boolean;
  /** Seconds until the window resets. */
  retryAfter: number;
}

/**
 * Counts one hit on `key` in a fixed window, atomically in the database, so the limit holds
 * however many instances serve requests.
 */
export async function hitRateLimit(
  db: Database,
  key: string,
  rule: RateLimitRule,
  now: Date,
): Promise<RateLimitResult> {
  // Raw SQL parameters carry no column type, so timestamps travel as ISO text with a cast.
  const cutoff = new Date(now.getTime() - rule.windowSeconds * 1000).toISOString();
  const expired = sql`${rateLimits.windowStart} <= ${cutoff}::timestamptz`;
  const [row] = await db
    .insert(rateLimits)
    .values({ key, windowStart: now, count: 1 })
    .onConflictDoUpdate({
      target: rateLimits.key,
      set: {
        count: sql`case when ${expired} then 1 else ${rateLimits.count} + 1 end`,
        windowStart: sql`case when ${expired} then ${now.toISOString()}::timestamptz else ${rateLimits.windowStart} end`,
      },
    })
    .returning({ count: rateLimits.count, windowStart: rateLimits.windowStart });
  // Counters of windows long gone are swept now and then, so addresses and emails an attacker
  // sprays do not grow the table for ever.
  if (Math.random() < SWEEP_PROBABILITY) await sweepRateLimits(db, now);
  const count = row?.count ?? 1;
  const windowStart = row?.windowStart ?? now;
  const retryAfter = Math.max(1, Math.ceil((windowStart.getTime() + rule.windowSeconds * 1000 - now.getTime()) / 1000));
  return { allowed: count <= rule.limit, retryAfter };
}

const SWEEP_PROBABILITY = 0.01;
/** Longer than any rule's window: a counter this old counts nothing any more. */
const SWEEP_AGE_MS = 24 * 60 * 60 * 1000;

export async function sweepRateLimits(db: Database, now: Date): Promise<void> {
  await db.delete(rateLimits).where(lt(rateLimits.windowStart, new Date(now.getTime() - SWEEP_AGE_MS)));
}

export async function clearRateLimit(db: Database, key: string): Promise<void> {
  await db.delete(rateLimits).where(eq(rateLimits.key, key));
}

import { users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { normalizeEmail } from "../../domain/names";
import { AppError } from "../../errors";
import type { LogInInput } from "../../schemas/accounts";
import { recordEvent } from "../audit";
import { clearRateLimit, hitRateLimit, LOGIN_PER_ACCOUNT, LOGIN_PER_ADDRESS } from "../rate-limit";
import { personalWorkspaceId } from "../workspaces/access";
import type { AccountUser } from "./create-account";
import { type NewSession, startSession } from "./sessions";
import type { AccountContext } from "./sign-up";

const INVALID = "The email or password is not right. Check both and try again.";

/**
 * Signs a user in. A wrong password and an unknown email get the same error after the same
 * work (one scrypt either way); attempts are counted per account and per address in the database.
 */
export async function logIn({
  ctx,
  input,
}: {
  ctx: AccountContext;
  input: LogInInput;
}): Promise<{ user: AccountUser; session: NewSession }> {
  const email = normalizeEmail(input.email);
  const accountKey = `login:acct:${email}`;
  const checks = [hitRateLimit(ctx.db, accountKey, LOGIN_PER_ACCOUNT, ctx.now)];
  if (ctx.client.address)
    checks.push(hitRateLimit(ctx.db, `login:addr:${ctx.client.address}`, LOGIN_PER_ADDRESS, ctx.now));
  const refused = (await Promise.all(checks)).find((r) => !r.allowed);
  if (refused) {
    throw new AppError("rate_limited", `Too many sign-in attempts. Try again in ${refused.retryAfter} seconds.`, {
      headers: { "Retry-After": String(refused.retryAfter) },
    });
  }

  const [user] = await ctx.db.select().from(users).where(eq(users.email, email)).limit(1);
  if (!user) {
    await ctx.hasher.burn(input.password);
    throw new AppError("invalid_credentials", INVALID);
  }
  const verdict = await ctx.hasher.verify(input.password, user.passwordHash);
  if (!verdict.ok) throw new AppError("invalid_credentials", INVALID);

  const newHash = verdict.needsRehash ? await ctx.hasher.hash(input.password) : null;
  const session = await ctx.db.transaction(async (tx) => {
    if (newHash) await tx.update(users).set({ passwordHash: newHash }).where(eq(users.id, user.id));
    const started = await startSession(tx, { userId: user.id, now: ctx.now, ...ctx.client });
    const personal = await personalWorkspaceId(tx, user.id);
    if (personal) {
      await recordEvent(
        tx,
        { principal: { userId: user.id }, requestId: ctx.requestId, now: ctx.now },
        { workspaceId: personal, action: "session.created", targetType: "session", targetId: started.sessionId },
      );
    }
    await clearRateLimit(tx, accountKey);
    return started;
  });
  return { user: { id: user.id, email: user.email, name: user.name, createdAt: user.createdAt }, session };
}

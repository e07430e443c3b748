import type { PasswordHasher } from "../../auth/password";
import { normalizeEmail } from "../../domain/names";
import { AppError } from "../../errors";
import type { SignUpInput } from "../../schemas/accounts";
import type { AnonymousContext } from "../context";
import { hitRateLimit, SIGNUP_PER_ADDRESS } from "../rate-limit";
import { type AccountUser, createAccount } from "./create-account";
import { type NewSession, startSession } from "./sessions";

export interface ClientInfo {
  address: string | null;
  userAgent: string | null;
}

export interface AccountContext extends AnonymousContext {
  hasher: PasswordHasher;
  client: ClientInfo;
}

export async function signUp({
  ctx,
  input,
}: {
  ctx: AccountContext;
  input: SignUpInput;
}): Promise<{ user: AccountUser; session: NewSession }> {
  if (ctx.client.address) {
    const hit = await hitRateLimit(ctx.db, `signup:addr:${ctx.client.address}`, SIGNUP_PER_ADDRESS, ctx.now);
    if (!hit.allowed) {
      throw new AppError(
        "rate_limited",
        `Too many sign-ups from this address. Try again in ${hit.retryAfter} seconds.`,
        {
          headers: { "Retry-After": String(hit.retryAfter) },
        },
      );
    }
  }
  // Hash before the transaction: it is the slow part and needs no lock.
  const passwordHash = await ctx.hasher.hash(input.password);
  return ctx.db.transaction(async (tx) => {
    const email = normalizeEmail(input.email);
    const user = await createAccount(tx, ctx, { email, name: input.name ?? "", passwordHash });
    const session = await startSession(tx, { userId: user.id, now: ctx.now, ...ctx.client });
    return { user, session };
  });
}

import { type Database, instanceSettings, users } from "@loadout/db";
import { eq } from "drizzle-orm";
import { hashSecret, randomBase62, safeEqual } from "../../auth/secrets";
import { normalizeEmail } from "../../domain/names";
import { AppError } from "../../errors";
import type { SetupInput } from "../../schemas/accounts";
import { type AccountUser, createAccount } from "./create-account";
import { type NewSession, startSession } from "./sessions";
import type { AccountContext } from "./sign-up";

const SETUP_KEY = "setup_token_hash";

export async function hasAnyAccount(db: Database): Promise<boolean> {
  const rows = await db.select({ id: users.id }).from(users).limit(1);
  return rows.length > 0;
}

/**
 * While no account exists, issues a fresh one-time setup secret (only its hash is kept) and
 * returns it for the start-up banner; returns null once an account exists.
 */
export async function issueSetupSecret(db: Database, now: Date): Promise<string | null> {
  if (await hasAnyAccount(db)) return null;
  const secret = randomBase62(32);
  await db
    .insert(instanceSettings)
    .values({ key: SETUP_KEY, value: hashSecret(secret), updatedAt: now })
    .onConflictDoUpdate({ target: instanceSettings.key, set: { value: hashSecret(secret), updatedAt: now } });
  return secret;
}

/** Creates the first account through the setup link. The link works once, and only while no account exists. */
export async function completeSetup({
  ctx,
  input,
}: {
  ctx: AccountContext;
  input: SetupInput;
}): Promise<{ user: AccountUser; session: NewSession }> {
  const passwordHash = await ctx.hasher.hash(input.password);
  return ctx.db.transaction(async (tx) => {
    // Serialises concurrent setups: the second waits, then finds the secret gone.
    const [setting] = await tx.select().from(instanceSettings).where(eq(instanceSettings.key, SETUP_KEY)).for("update");
    const invalid = new AppError(
      "forbidden",
      "This setup link is not valid or was already used. Sign in, or restart the server for a new link.",
    );
    if (!setting || !safeEqual(setting.value, hashSecret(input.token))) throw invalid;
    if (await hasAnyAccount(tx)) throw invalid;
    await tx.delete(instanceSettings).where(eq(instanceSettings.key, SETUP_KEY));
    const user = await createAccount(tx, ctx, {
      email: normalizeEmail(input.email),
      name: input.name ?? "",
      passwordHash,
    });
    const session = await startSession(tx, { userId: user.id, now: ctx.now, ...ctx.client });
    return { user, session };
  });
}

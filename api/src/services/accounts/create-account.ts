import { type Database, memberships, newId, users, workspaces } from "@loadout/db";
import { randomBase62 } from "../../auth/secrets";
import { slugFromEmail } from "../../domain/names";
import { AppError } from "../../errors";
import { recordEvent } from "../audit";
import type { AnonymousContext } from "../context";
import { uniqueViolation } from "../db-errors";

export interface NewAccount {
  email: string;
  name: string;
  passwordHash: string;
}

export interface AccountUser {
  id: string;
  email: string;
  name: string;
  createdAt: Date;
}

/**
 * Creates a user with a personal workspace and its owner membership, in the given transaction.
 * A taken email is a 409; a taken personal slug gets a short random suffix.
 */
export async function createAccount(tx: Database, ctx: AnonymousContext, account: NewAccount): Promise<AccountUser> {
  const userId = newId("user", ctx.now.getTime());
  try {
    await tx.insert(users).values({ id: userId, ...account, createdAt: ctx.now });
  } catch (error) {
    if (uniqueViolation(error) !== null) {
      throw new AppError(
        "conflict",
        "An account with this email already exists. Sign in instead, or use another email.",
      );
    }
    throw error;
  }

  const base = slugFromEmail(account.email);
  const workspaceId = newId("workspace", ctx.now.getTime());
  // Savepoints let a taken slug be retried without losing the user row above.
  let slug = base;
  for (let attempt = 0; ; attempt++) {
    try {
      await tx.transaction(async (sp) => {
        await sp
          .insert(workspaces)
          .values({ id: workspaceId, slug, name: account.name || slug, kind: "personal", createdAt: ctx.now });
      });
      break;
    } catch (error) {
      if (uniqueViolation(error) === null || attempt >= 5) throw error;
      slug = `${base.slice(0, 30)}-${randomBase62(6).toLowerCase()}`.replace(/[^a-z0-9-]/g, "x");
    }
  }
  await tx.insert(memberships).values({ workspaceId, userId, role: "owner", createdAt: ctx.now });
  const actor = { principal: { userId }, requestId: ctx.requestId, now: ctx.now };
  await recordEvent(tx, actor, { workspaceId, action: "user.created", targetType: "user", targetId: userId });
  await recordEvent(tx, actor, {
    workspaceId,
    action: "workspace.created",
    targetType: "workspace",
    targetId: workspaceId,
    data: { slug, kind: "personal" },
  });
  return { id: userId, email: account.email, name: account.name, createdAt: ctx.now };
}

import { AppError } from "../../errors";
import type { InviteIntroduction } from "../../schemas/teams";
import type { AnonymousContext } from "../context";
import { hitRateLimit, INVITE_LOOKUP_PER_ADDRESS } from "../rate-limit";
import { findInvite } from "./answer-invite";
import { inviteStatus } from "./invites";

/**
 * One answer for every link that cannot be used, whatever the reason (unknown, expired, revoked,
 * used, declined): before sign-in nothing else about an invite, or whether it ever existed, is told.
 */
const unusableLink = () =>
  new AppError(
    "not_found",
    "This invite link cannot be used: it is unknown, has expired or was already used. Copy the whole link again, or ask the team for a new invite.",
  );

/**
 * What a signed-out visitor holding an invite link may learn: the team's name and the address the
 * invite was sent to, so they know which account to sign in with or create. Only for a link that
 * can still be accepted; rate-limited per address like the other public routes.
 */
export async function lookUpInvite({
  ctx,
  token,
  address,
}: {
  ctx: AnonymousContext;
  token: string;
  address: string | null;
}): Promise<InviteIntroduction> {
  const hit = await hitRateLimit(
    ctx.db,
    `invite-lookup:addr:${address ?? "unknown"}`,
    INVITE_LOOKUP_PER_ADDRESS,
    ctx.now,
  );
  if (!hit.allowed) {
    throw new AppError(
      "rate_limited",
      `Too many invite links looked up from this address. Try again in ${hit.retryAfter} seconds.`,
      {
        headers: { "Retry-After": String(hit.retryAfter) },
      },
    );
  }
  let found: Awaited<ReturnType<typeof findInvite>>;
  try {
    found = await findInvite(ctx, token);
  } catch (error) {
    if (error instanceof AppError && error.code === "not_found") throw unusableLink();
    throw error;
  }
  if (inviteStatus(found.invite, ctx.now) !== "pending") throw unusableLink();
  return { team: { name: found.team.name }, email: found.invite.email };
}

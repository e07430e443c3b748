import { consoleSessions, type Database, newId } from "@loadout/db";
import { hashSecret, newSessionSecret } from "../../auth/secrets";

export const SESSION_TTL_SECONDS = 30 * 24 * 60 * 60;

export interface NewSession {
  sessionId: string;
  secret: string;
  expiresAt: Date;
}

export async function startSession(
  db: Database,
  input: { userId: string; now: Date; userAgent: string | null; address: string | null },
): Promise<NewSession> {
  const secret = newSessionSecret();
  const sessionId = newId("session", input.now.getTime());
  const expiresAt = new Date(input.now.getTime() + SESSION_TTL_SECONDS * 1000);
  await db.insert(consoleSessions).values({
    id: sessionId,
    userId: input.userId,
    secretHash: hashSecret(secret),
    userAgent: input.userAgent?.slice(0, 256) ?? null,
    address: input.address,
    createdAt: input.now,
    expiresAt,
  });
  return { sessionId, secret, expiresAt };
}

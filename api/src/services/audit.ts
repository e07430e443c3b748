import { auditEvents, type Database, newId } from "@loadout/db";
import type { Principal } from "./context";

export interface AuditInput {
  workspaceId: string;
  action: string;
  targetType: string;
  targetId: string;
  data?: Record<string, unknown>;
}

/** Appends an audit event; call it with the transaction of the write it records. Never put secrets in `data`. */
export async function recordEvent(
  db: Database,
  actor: { principal: Pick<Principal, "userId"> & Partial<{ tokenId: string }>; requestId: string; now: Date },
  input: AuditInput,
): Promise<void> {
  await db.insert(auditEvents).values({
    id: newId("event", actor.now.getTime()),
    workspaceId: input.workspaceId,
    actorUserId: actor.principal.userId,
    actorTokenId: actor.principal.tokenId ?? null,
    action: input.action,
    targetType: input.targetType,
    targetId: input.targetId,
    data: input.data ?? {},
    requestId: actor.requestId,
    createdAt: actor.now,
  });
}

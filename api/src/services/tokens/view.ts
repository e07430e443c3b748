import { isScope } from "../../domain/scopes";
import type { TokenView } from "../../schemas/tokens";

export interface TokenRow {
  id: string;
  name: string;
  displayPrefix: string;
  scopes: string[];
  workspaceSlug: string | null;
  workspaceName: string | null;
  createdAt: Date;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
}

export function tokenView(row: TokenRow, now: Date): TokenView {
  const status = row.revokedAt ? "revoked" : row.expiresAt && row.expiresAt <= now ? "expired" : "active";
  return {
    id: row.id,
    name: row.name,
    prefix: row.displayPrefix,
    scopes: row.scopes.filter(isScope),
    workspace: row.workspaceSlug ? { slug: row.workspaceSlug, name: row.workspaceName ?? row.workspaceSlug } : null,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
    revokedAt: row.revokedAt?.toISOString() ?? null,
    status,
  };
}

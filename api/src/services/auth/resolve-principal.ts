import { apiTokens, consoleSessions, type Database, memberships, workspaces } from "@loadout/db";
import { and, eq, sql } from "drizzle-orm";
import { hashSecret, looksLikeApiToken } from "../../auth/secrets";
import { isScope, SCOPES, type Scope } from "../../domain/scopes";
import { AppError } from "../../errors";
import type { WorkspaceView } from "../../schemas/workspaces";
import type { Principal } from "../context";
import { prepared } from "../prepared";
import { workspaceColumns } from "../workspaces/access";

/** How often, at most, a token's last-used time is written: it is a hint, not a log. */
const LAST_USED_RESOLUTION_MS = 60_000;

export interface ResolvedPrincipal {
  principal: Principal;
  /** Work to run after the response (recording last use); never on the request's critical path. */
  after?: (db: Database) => Promise<void>;
  /** When the credential stops working by itself (null: never); a cached copy is checked against it. */
  expiresAt?: Date | null;
}

export async function principalFromApiToken(db: Database, secret: string, now: Date): Promise<ResolvedPrincipal> {
  assertTokenShape(secret);
  const [row] = await prepared(db, "token_by_secret", (d) =>
    d
      .select(tokenColumns)
      .from(apiTokens)
      .where(eq(apiTokens.secretHash, sql.placeholder("hash")))
      .limit(1)
      .prepare("token_by_secret"),
  ).execute({ hash: hashSecret(secret) });
  return checkToken(row, now);
}

/**
 * The principal of an API token and the workspaces it reaches, in one round trip: the MCP
 * endpoint needs both on every request.
 */
export async function principalAndWorkspacesFromApiToken(
  db: Database,
  secret: string,
  now: Date,
): Promise<ResolvedPrincipal & { workspaces: WorkspaceView[] }> {
  assertTokenShape(secret);
  const rows = await prepared(db, "token_with_workspaces", (d) =>
    d
      .select({ token: tokenColumns, workspace: workspaceColumns })
      .from(apiTokens)
      .leftJoin(
        memberships,
        and(
          eq(memberships.userId, apiTokens.userId),
          sql`(${apiTokens.workspaceId} is null or ${memberships.workspaceId} = ${apiTokens.workspaceId})`,
        ),
      )
      .leftJoin(workspaces, eq(workspaces.id, memberships.workspaceId))
      .where(eq(apiTokens.secretHash, sql.placeholder("hash")))
      .orderBy(workspaces.kind, workspaces.slug)
      .prepare("token_with_workspaces"),
  ).execute({ hash: hashSecret(secret) });
  const resolved = checkToken(rows[0]?.token, now);
  const reached = rows.flatMap(({ workspace: w }) =>
    w?.id && w.slug && w.name !== null && w.kind && w.role && w.createdAt
      ? [{ id: w.id, slug: w.slug, name: w.name, kind: w.kind, role: w.role, createdAt: w.createdAt.toISOString() }]
      : [],
  );
  return { ...resolved, workspaces: reached };
}

const tokenColumns = {
  id: apiTokens.id,
  userId: apiTokens.userId,
  workspaceId: apiTokens.workspaceId,
  scopes: apiTokens.scopes,
  expiresAt: apiTokens.expiresAt,
  revokedAt: apiTokens.revokedAt,
  lastUsedAt: apiTokens.lastUsedAt,
};

function assertTokenShape(secret: string): void {
  if (!looksLikeApiToken(secret)) {
    throw new AppError(
      "unauthorized",
      "The bearer token is not a Loadout API token (they start with lo_). Create one on the Tokens page.",
    );
  }
}

function checkToken(
  row:
    | {
        id: string;
        userId: string;
        workspaceId: string | null;
        scopes: string[];
        expiresAt: Date | null;
        revokedAt: Date | null;
        lastUsedAt: Date | null;
      }
    | undefined,
  now: Date,
): ResolvedPrincipal {
  if (!row)
    throw new AppError("unauthorized", "This API token is not known. Check it was copied whole, or create a new one.");
  if (row.revokedAt)
    throw new AppError("unauthorized", "This API token was revoked. Create a new one on the Tokens page.");
  if (row.expiresAt && row.expiresAt <= now) {
    throw new AppError(
      "unauthorized",
      `This API token expired at ${row.expiresAt.toISOString()}. Create a new one on the Tokens page.`,
    );
  }
  const principal: Principal = {
    kind: "token",
    userId: row.userId,
    tokenId: row.id,
    scopes: row.scopes.filter(isScope),
    workspaceId: row.workspaceId,
  };
  const stale = !row.lastUsedAt || now.getTime() - row.lastUsedAt.getTime() > LAST_USED_RESOLUTION_MS;
  return {
    principal,
    expiresAt: row.expiresAt,
    ...(stale
      ? {
          after: (d: Database) =>
            d
              .update(apiTokens)
              .set({ lastUsedAt: now })
              .where(eq(apiTokens.id, row.id))
              .then(() => {}),
        }
      : {}),
  };
}

export async function principalFromSession(db: Database, secret: string, now: Date): Promise<ResolvedPrincipal> {
  const [row] = await prepared(db, "session_by_secret", (d) =>
    d
      .select({ id: consoleSessions.id, userId: consoleSessions.userId, expiresAt: consoleSessions.expiresAt })
      .from(consoleSessions)
      .where(eq(consoleSessions.secretHash, sql.placeholder("hash")))
      .limit(1)
      .prepare("session_by_secret"),
  ).execute({ hash: hashSecret(secret) });
  if (row && row.expiresAt <= now)
    throw new AppError("unauthorized", "Your console session has expired. Sign in again.");
  if (!row) throw new AppError("unauthorized", "Your console session has ended. Sign in again.");
  const scopes: readonly Scope[] = SCOPES;
  return { principal: { kind: "session", userId: row.userId, sessionId: row.id, scopes, workspaceId: null } };
}

import type { Database } from "@loadout/db";
import type { WorkspaceView } from "../../schemas/workspaces";
import { looksLikeAccessToken, principalAndWorkspacesFromAccessToken } from "../oauth/verify";
import { principalAndWorkspacesFromApiToken, type ResolvedPrincipal } from "./resolve-principal";

export interface ResolvedBearer extends ResolvedPrincipal {
  workspaces: WorkspaceView[];
  /** OAuth access tokens only: the MCP URL they are bound to (API tokens reach every endpoint). */
  audience: string | null;
  pins: { project: string | null; mode: "agent" | "plan" | "goal" | null } | null;
}

/**
 * The one verification path of the MCP endpoint: an API token (`lo_…`) or an OAuth access token
 * (`loa_…`), told apart by prefix, each resolved with its workspaces in one prepared query.
 */
export async function principalFromBearer(db: Database, secret: string, now: Date): Promise<ResolvedBearer> {
  if (looksLikeAccessToken(secret)) return principalAndWorkspacesFromAccessToken(db, secret, now);
  return { ...(await principalAndWorkspacesFromApiToken(db, secret, now)), audience: null, pins: null };
}

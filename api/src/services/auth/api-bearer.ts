import type { Database } from "@loadout/db";
import { AppError } from "../../errors";
import { looksLikeAccessToken, principalAndWorkspacesFromAccessToken } from "../oauth/verify";
import { principalFromApiToken, type ResolvedPrincipal } from "./resolve-principal";

/**
 * The principal of a bearer secret at the REST API: an API token (`lo_…`), or an OAuth access
 * token (`loa_…`) issued for the API itself (`<origin>/v1`, as `loadout login` asks). A token
 * issued for an MCP URL is refused here, as an API-bound one is at every MCP URL.
 */
export async function principalFromApiBearer(
  db: Database,
  secret: string,
  now: Date,
  apiResource: string,
): Promise<ResolvedPrincipal> {
  if (!looksLikeAccessToken(secret)) return principalFromApiToken(db, secret, now);
  const { principal, expiresAt, audience, after } = await principalAndWorkspacesFromAccessToken(db, secret, now);
  if (audience !== apiResource) {
    throw new AppError(
      "unauthorized",
      `This access token was issued for ${audience}, not the REST API. Use an API token (lo_…), or sign in with \`loadout login\`.`,
    );
  }
  return { principal, expiresAt, ...(after ? { after } : {}) };
}

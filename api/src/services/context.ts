import type { Database } from "@loadout/db";
import type { Scope } from "../domain/scopes";
import type { Logger } from "../logger";

export type Principal =
  | { kind: "session"; userId: string; sessionId: string; scopes: readonly Scope[]; workspaceId: null }
  | { kind: "token"; userId: string; tokenId: string; scopes: readonly Scope[]; workspaceId: string | null }
  /** An OAuth access token: a connected app acting for the user, within the grant's scopes and workspace. */
  | { kind: "oauth"; userId: string; grantId: string; scopes: readonly Scope[]; workspaceId: string | null };

/** What every action receives: who acts, on which database (or transaction), for which request, at what time. */
export interface ActionContext {
  db: Database;
  principal: Principal;
  requestId: string;
  now: Date;
  /** Where a transport logs what it may not tell the caller (an unexpected error's detail). */
  logger?: Logger;
}

/** For actions that run before anyone is signed in (sign-up, log-in, setup). */
export interface AnonymousContext {
  db: Database;
  requestId: string;
  now: Date;
}

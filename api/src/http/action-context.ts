import type { Context } from "hono";
import { AppError } from "../errors";
import type { ActionContext, AnonymousContext } from "../services/context";
import type { AppEnv } from "./env";

/** The action context of an authenticated route; `requireAuth` has set the principal. */
export function actionContext(c: Context<AppEnv>): ActionContext {
  const principal = c.get("principal");
  if (!principal) throw new AppError("unauthorized", "Sign in, or send an API token as `Authorization: Bearer lo_…`.");
  return { db: c.get("db"), principal, requestId: c.get("requestId"), now: c.get("now"), logger: c.get("deps").logger };
}

/** The context of a public route's action: no principal, only the request's database, id and time. */
export function anonymousContext(c: Context<AppEnv>): AnonymousContext {
  return { db: c.get("db"), requestId: c.get("requestId"), now: c.get("now") };
}

import type { OpenAPIHono } from "@hono/zod-openapi";
import { getCookie } from "hono/cookie";
import { clientMetadataDocument, metadataDocumentUrl } from "../domain/upstream-oauth/registration";
import type { AppEnv } from "../http/env";
import { SESSION_COOKIE } from "../http/middleware/auth";
import { requestOrigin } from "../http/origin";
import { principalFromSession } from "../services/auth/resolve-principal";
import { CallbackProblem, finishConnect } from "../services/servers/oauth/connect";
import type { ServerDeps } from "../services/servers/upstreams";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch] ?? ch);

function problemPage(message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Sign-in not completed · Loadout</title><style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;color:#1f2328}</style></head><body><h1>The sign-in was not completed</h1><p data-testid="upstream-oauth-problem">${escapeHtml(message)}</p><p>Nothing was stored. <a href="/servers/">Back to Servers</a></p></body></html>`;
}

/**
 * Loadout as an OAuth client of upstream servers: the client ID metadata document it publishes
 * (its `client_id` where an authorization server accepts one) and the callback the browser
 * returns to after signing in. See services/servers/oauth.
 */
export function registerUpstreamOAuth(app: OpenAPIHono<AppEnv>, serverDeps: ServerDeps) {
  app.get("/oauth/client-metadata.json", (c) => {
    const origin = requestOrigin(c);
    if (!metadataDocumentUrl(origin, serverDeps.allowLoopback))
      return c.json(
        { error: "not_found", error_description: "This deployment publishes its client metadata on https only." },
        404,
      );
    c.header("cache-control", "public, max-age=3600");
    return c.json(clientMetadataDocument(origin));
  });
  app.get("/oauth/upstream/callback", async (c) => {
    const q = (name: string) => c.req.query(name);
    c.header("cache-control", "no-store");
    c.header("referrer-policy", "no-referrer");
    // The browser that comes back must be signed in to the console as the user who pressed Connect:
    // otherwise someone could send their own sign-in link to another person and collect that
    // person's upstream account into theirs.
    const session = getCookie(c, SESSION_COOKIE);
    const signedIn = session
      ? await principalFromSession(c.get("db"), session, c.get("now")).then(
          (resolved) => resolved.principal.userId,
          () => null,
        )
      : null;
    try {
      const { location } = await finishConnect({
        ctx: { db: c.get("db"), requestId: c.get("requestId"), now: c.get("now") },
        browserUserId: signedIn,
        query: {
          state: q("state"),
          code: q("code"),
          iss: q("iss"),
          error: q("error"),
          error_description: q("error_description"),
        },
        deps: serverDeps,
      });
      return c.redirect(location, 302);
    } catch (error) {
      if (!(error instanceof CallbackProblem)) throw error;
      return c.html(problemPage(error.message), 400);
    }
  });
}

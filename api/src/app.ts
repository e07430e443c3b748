import { OpenAPIHono } from "@hono/zod-openapi";
import { Hono } from "hono";
import { secureHeaders } from "hono/secure-headers";
import { passwordJudgeSource } from "./auth/password-judge";
import { deriveKey } from "./auth/secrets";
import { isApiPath } from "./domain/console/api-paths";
import { AppError } from "./errors";
import type { AppDeps, AppEnv } from "./http/env";
import { respondWithError, validationError } from "./http/errors";
import { requestContext, requestScope } from "./http/middleware/request-context";
import { renderReference } from "./http/reference-page";
import { registerActivity } from "./http/routes/activity";
import { registerAuth } from "./http/routes/auth";
import { registerDevices } from "./http/routes/devices";
import { registerHealth } from "./http/routes/health";
import { registerMcpSettings } from "./http/routes/mcp-settings";
import { registerMe } from "./http/routes/me";
import { registerOAuthConsent } from "./http/routes/oauth";
import { registerProjects } from "./http/routes/projects";
import { registerServerConnections } from "./http/routes/server-connections";
import { registerServers } from "./http/routes/servers";
import { registerSkills } from "./http/routes/skills";
import { registerTeams } from "./http/routes/teams";
import { registerTokens } from "./http/routes/tokens";
import { registerWorkspaces } from "./http/routes/workspaces";
import { createServerDeps } from "./http/server-deps";
import { registerMcp } from "./mcp/endpoint";
import type { McpServe } from "./mcp/pipeline";
import { registerOAuth } from "./oauth/routes";
import { registerUpstreamOAuth } from "./oauth/upstream-routes";
import { resealUpstreamOAuthSecrets } from "./services/servers/oauth/reseal";
import { resealServerSecrets } from "./services/servers/reseal";

export type { AppDeps, DatabaseProvider } from "./http/env";

const API_DESCRIPTION =
  "Loadout's REST API: accounts, workspaces, API tokens, skills and remote MCP servers. Authenticate with `Authorization: Bearer lo_…` (an API token) or the console's session cookie.";

/** Nothing of Loadout's may be framed (the consent page will be a clickjacking target) or sniffed. */
const SECURE_HEADERS = { xFrameOptions: "DENY", referrerPolicy: "strict-origin-when-cross-origin" } as const;

/**
 * The headers `secureHeaders` sets on every answer, read once off the middleware itself, for a
 * host that writes answers without Hono (they depend on nothing in the request).
 */
async function securityHeaders(): Promise<Record<string, string>> {
  const probe = new Hono();
  probe.use("*", secureHeaders(SECURE_HEADERS));
  probe.get("/", (c) => c.body(null, 204));
  return Object.fromEntries((await probe.request("/")).headers);
}

/**
 * What a host needs to serve MCP POSTs without Hono (the Node host's lane): the endpoint, the
 * request scope every route runs in, and the headers every answer carries.
 */
export interface McpLaneParts {
  serve: McpServe;
  scope: ReturnType<typeof requestScope>;
  securityHeaders: Promise<Record<string, string>>;
}

/** Builds the whole app from its dependencies. Node and Workers entries differ only in what they pass. */
export function createApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      if (!result.success) {
        const where = result.target === "json" ? "request body" : result.target === "param" ? "path" : result.target;
        throw validationError(result.error, where);
      }
    },
  });
  const csrfKey = deriveKey(deps.secretKey, "csrf");

  app.use("*", requestContext(deps, csrfKey));
  app.use("*", secureHeaders(SECURE_HEADERS));
  app.onError((error, c) => respondWithError(c, error));

  registerHealth(app);
  registerAuth(app, passwordJudgeSource(deps.passwordDictionary, deps.logger));
  registerMe(app);
  registerWorkspaces(app);
  registerTokens(app);
  registerSkills(app);
  registerProjects(app);
  const serverDeps = createServerDeps(deps);
  registerServers(app, serverDeps);
  registerServerConnections(app, serverDeps);
  registerTeams(app, serverDeps);
  registerActivity(app);
  registerMcpSettings(app, serverDeps);
  registerDevices(app);
  const serveMcp = registerMcp(app, serverDeps, deriveKey(deps.secretKey, "mcp-session"), deps.pendingAnswers);
  registerOAuth(app);
  registerUpstreamOAuth(app, serverDeps);
  registerOAuthConsent(app);

  app.openAPIRegistry.registerComponent("securitySchemes", "bearerAuth", {
    type: "http",
    scheme: "bearer",
    description: "An API token (`lo_…`). The security requirement lists the scope the route needs.",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "sessionCookie", {
    type: "apiKey",
    in: "cookie",
    name: "lo_session",
    description: "The console session. Writes also need the `x-csrf-token` header.",
  });
  const documentConfig = {
    openapi: "3.1.0",
    info: { title: "Loadout API", version: deps.version ?? "0.1.0", description: API_DESCRIPTION },
  };
  app.doc31("/v1/openapi.json", documentConfig);
  let reference: string | undefined;
  app.get("/v1/docs", (c) => {
    reference ??= renderReference(app.getOpenAPI31Document(documentConfig) as unknown as Record<string, unknown>);
    return c.html(reference);
  });

  const noRoute = (method: string, path: string) =>
    new AppError("not_found", `No route ${method} ${path}. The API is described at /v1/openapi.json.`);
  app.all("/v1/*", (c) => {
    throw noRoute(c.req.method, c.req.path);
  });
  if (deps.assets) {
    app.use("*", deps.assets);
  }
  app.notFound(async (c) => {
    // A console address that matches no page gets the console's own page; the API keeps its JSON errors.
    if (deps.notFoundPage && (c.req.method === "GET" || c.req.method === "HEAD") && !isApiPath(c.req.path)) {
      const page = await deps.notFoundPage();
      if (page !== null) return c.html(page, 404);
    }
    return respondWithError(c, noRoute(c.req.method, c.req.path));
  });
  let headers: Promise<Record<string, string>> | undefined;
  const mcpLane: McpLaneParts = {
    serve: serveMcp,
    scope: requestScope(deps, csrfKey),
    get securityHeaders() {
      headers ??= securityHeaders();
      return headers;
    },
  };
  /** Server secrets sealed under an earlier LOADOUT_SECRET_KEY, sealed again under the current one. */
  const resealSecrets = async () => {
    const { db, release } = deps.database.acquire();
    try {
      const servers = await resealServerSecrets(db, serverDeps.box);
      const oauth = await resealUpstreamOAuthSecrets(db, serverDeps.box);
      return { resealed: servers.resealed + oauth.resealed, unopenable: servers.unopenable + oauth.unopenable };
    } finally {
      await release();
    }
  };
  return Object.assign(app, { mcpLane, resealSecrets });
}

export type App = ReturnType<typeof createApp>;

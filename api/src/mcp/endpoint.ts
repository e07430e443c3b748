import type { OpenAPIHono } from "@hono/zod-openapi";
import { createMcpHandler } from "@modelcontextprotocol/server";
import type { Context } from "hono";
import { normalizeProjectPath } from "../domain/activation";
import { instructionsBlock } from "../domain/instructions";
import { hasScope } from "../domain/scopes";
import { AppError, ERROR_CODES } from "../errors";
import type { AppEnv } from "../http/env";
import { principalFromApiToken } from "../services/auth/resolve-principal";
import type { ActionContext } from "../services/context";
import { activeItems, type McpSession } from "../services/mcp/catalog";
import { reachableWorkspaces } from "../services/workspaces/access";
import { buildMcpServer } from "./server";

const MODES = new Set(["agent", "plan", "goal"]);
/** MCP requests are small JSON-RPC messages; skill_edit with files is the largest. */
const MCP_BODY_LIMIT = 4 * 1024 * 1024;

interface PerRequest {
  ctx: ActionContext;
  session: McpSession;
  instructions: string | null;
}

function originOf(c: Context<AppEnv>): string {
  const url = new URL(c.req.url);
  const proto = c.req.header("x-forwarded-proto") ?? url.protocol.replace(":", "");
  return `${proto}://${c.req.header("host") ?? url.host}`;
}

/** A JSON-RPC error for failures before the MCP server is reached (auth, origin, bad headers). */
function rpcError(c: Context<AppEnv>, error: AppError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(
    {
      jsonrpc: "2.0",
      id: null,
      error: {
        code: ERROR_CODES[error.code].jsonRpc,
        message: error.message,
        data: { code: error.code, requestId: c.get("requestId") },
      },
    },
    error.status,
  );
}

/**
 * The MCP endpoint: `/mcp` on the official SDK's stateless handler, serving the 2026-07-28
 * revision and 2025-era clients on one path with no sticky state. Loadout's own checks run first:
 * Origin, the Bearer token (scope `mcp`), the session's project and mode.
 */
export function registerMcp(app: OpenAPIHono<AppEnv>) {
  const handler = createMcpHandler(
    ({ authInfo }) => {
      const per = authInfo?.extra?.loadout as PerRequest | undefined;
      if (!per) throw new Error("MCP request without Loadout's context");
      return buildMcpServer(per.ctx, per.session, per.instructions);
    },
    { legacy: "stateless", maxRequestBodySize: MCP_BODY_LIMIT },
  );

  const metadata = (c: Context<AppEnv>) => {
    const origin = originOf(c);
    return c.json({
      resource: `${origin}/mcp`,
      authorization_servers: [origin],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
      resource_name: "Loadout",
      resource_documentation: `${origin}/v1/docs`,
    });
  };
  app.get("/.well-known/oauth-protected-resource", metadata);
  app.get("/.well-known/oauth-protected-resource/mcp", metadata);

  app.all("/mcp", async (c) => {
    const origin = originOf(c);
    const sentOrigin = c.req.header("origin");
    // DNS rebinding: a browser page on another site must not reach the endpoint.
    if (sentOrigin && sentOrigin !== "null") {
      let host: string | null = null;
      try {
        host = new URL(sentOrigin).host;
      } catch {
        host = null;
      }
      if (host !== new URL(origin).host)
        return rpcError(c, new AppError("forbidden", `Origin ${sentOrigin} may not use this MCP endpoint.`));
    }

    const challenge = `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`;
    const match = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
    if (!match?.[1]) {
      return rpcError(
        c,
        new AppError(
          "unauthorized",
          "This MCP endpoint needs a Loadout API token with the mcp scope: send `Authorization: Bearer lo_…`.",
          { headers: { "WWW-Authenticate": challenge } },
        ),
      );
    }
    let resolved: Awaited<ReturnType<typeof principalFromApiToken>>;
    try {
      resolved = await principalFromApiToken(c.get("db"), match[1], c.get("now"));
    } catch (error) {
      if (error instanceof AppError)
        return rpcError(
          c,
          new AppError(error.code, error.message, {
            headers: { "WWW-Authenticate": `${challenge}, error="invalid_token"` },
          }),
        );
      throw error;
    }
    const principal = resolved.principal;
    c.set("principal", principal);
    if (resolved.after) {
      const after = resolved.after;
      c.get("defer")(() => after(c.get("db")));
    }
    if (!hasScope(principal.scopes, "mcp")) {
      return rpcError(
        c,
        new AppError("insufficient_scope", 'This token lacks the "mcp" scope. Create a token with it.', {
          headers: { "WWW-Authenticate": `${challenge}, error="insufficient_scope", scope="mcp"` },
        }),
      );
    }

    const mode = c.req.query("mode") ?? c.req.header("x-loadout-mode") ?? "agent";
    if (!MODES.has(mode))
      return rpcError(c, new AppError("invalid_request", `Unknown mode "${mode}": use agent, plan or goal.`));
    const rawProject = c.req.query("project") ?? c.req.header("x-loadout-project") ?? null;
    const project = rawProject ? normalizeProjectPath(rawProject) || null : null;

    let parsedBody: unknown;
    if (c.req.method === "POST") {
      const declared = Number(c.req.header("content-length") ?? "0");
      if (declared > MCP_BODY_LIMIT)
        return rpcError(c, new AppError("payload_too_large", "The MCP request is larger than 4 MiB."));
      try {
        parsedBody = await c.req.json();
      } catch {
        return c.json(
          { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the body is not JSON." } },
          400,
        );
      }
    }

    const ctx: ActionContext = { db: c.get("db"), principal, requestId: c.get("requestId"), now: c.get("now") };
    const session: McpSession = {
      principal,
      workspaces: await reachableWorkspaces(ctx.db, principal),
      project,
      mode: mode as McpSession["mode"],
    };
    // The instructions are only read by the handshake; other requests skip the catalog query.
    const method = (parsedBody as { method?: unknown } | undefined)?.method;
    const instructions =
      method === "initialize" || method === "server/discover"
        ? instructionsBlock(
            (await activeItems(ctx.db, session)).map((i) => ({
              address: i.address,
              kind: i.kind,
              description: i.description,
            })),
          )
        : null;
    const per: PerRequest = { ctx, session, instructions };
    return handler.fetch(c.req.raw, {
      parsedBody,
      authInfo: {
        token: "loadout",
        clientId: principal.kind === "token" ? principal.tokenId : principal.userId,
        scopes: [...principal.scopes],
        extra: { loadout: per },
      },
    });
  });
}

import type { OpenAPIHono } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import type { AppEnv } from "../http/env";
import { readLimited } from "../http/middleware/json-body";
import { requestOrigin as originOf } from "../http/origin";
import type { PendingAnswers } from "../services/mcp/pending-answers";
import type { ServerDeps } from "../services/servers/upstreams";
import { isWebReply, type McpTarget } from "./exchange";
import { type McpServe, mcpPipeline } from "./pipeline";

/**
 * The MCP URLs on Hono: `/mcp`, saved endpoints (`/mcp/e/{id}`) and single servers
 * (`/mcp/s/{ws}/{slug}`), each served by the pipeline (see pipeline.ts), and their
 * protected-resource metadata (RFC 9728). Returns the pipeline, for hosts that answer MCP requests
 * without Hono (see entry/node-mcp-adapter.ts).
 */
export function registerMcp(
  app: OpenAPIHono<AppEnv>,
  serverDeps: ServerDeps,
  sessionKey: Uint8Array,
  pending?: PendingAnswers,
): McpServe {
  const handleMcp = mcpPipeline(serverDeps, sessionKey, pending);

  const metadata = (c: Context<AppEnv>, path: string) => {
    const origin = originOf(c);
    return c.json({
      resource: `${origin}${path}`,
      authorization_servers: [origin],
      scopes_supported: ["mcp"],
      bearer_methods_supported: ["header"],
      resource_name: "Loadout",
      resource_documentation: `${origin}/v1/docs`,
    });
  };
  app.get("/.well-known/oauth-protected-resource", (c) => metadata(c, "/mcp"));
  app.get("/.well-known/oauth-protected-resource/mcp", (c) => metadata(c, "/mcp"));
  app.get("/.well-known/oauth-protected-resource/mcp/e/:endpoint", (c) =>
    metadata(c, `/mcp/e/${c.req.param("endpoint")}`),
  );
  app.get("/.well-known/oauth-protected-resource/mcp/s/:ws/:slug", (c) =>
    metadata(c, `/mcp/s/${c.req.param("ws")}/${c.req.param("slug")}`),
  );

  /** The Hono adapter: the context is the exchange's, the body read through the web Request. */
  const viaHono = async (c: Context<AppEnv>, target: McpTarget) => {
    const reply = await handleMcp({
      c,
      io: {
        read: (limit) => readLimited(c.req.raw, limit),
        signal: () => c.req.raw.signal,
        web: () => c.req.raw,
      },
      target,
    });
    if (isWebReply(reply)) return reply;
    // An empty payload (a 202) as no body: a string body would be given a text/plain type.
    const status = reply.status as ContentfulStatusCode;
    return reply.payload === "" ? c.body(null, status, reply.headers) : c.body(reply.payload, status, reply.headers);
  };
  app.all("/mcp", (c) => viaHono(c, { endpointId: null, single: null }));
  app.all("/mcp/e/:endpoint", (c) => viaHono(c, { endpointId: c.req.param("endpoint"), single: null }));
  app.all("/mcp/s/:ws/:slug", (c) =>
    viaHono(c, { endpointId: null, single: { ws: c.req.param("ws"), slug: c.req.param("slug") } }),
  );
  return handleMcp;
}

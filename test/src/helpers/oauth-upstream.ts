/**
 * A minimal OAuth-protected MCP server for the upstream OAuth tests, on loopback: the resource
 * side is the SDK's own (`requireBearerAuth`, `oauthMetadataResponse`, a tool's `scopeChallenge`
 * with `requireScopes`), the authorization server beside it a small one written here (the SDK
 * ships no authorization server): authorize answers at once for the subject the test names,
 * PKCE S256 and `resource` are checked at the token endpoint, refresh tokens rotate and a reused
 * one is refused (and ends its family), and it registers clients dynamically.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type AuthInfo,
  createMcpHandler,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  oauthMetadataResponse,
  requireBearerAuth,
  requireScopes,
} from "@modelcontextprotocol/server";
import { z } from "zod";
import { writeResponse } from "./upstreams";

export interface OAuthUpstreamOptions {
  /** The authorization server the metadata names (default: this server); a private address to test the guard. */
  issuer?: string;
  /** Leave code_challenge_methods_supported out of the metadata (a PKCE downgrade). */
  omitPkceMethods?: boolean;
  /** The `iss` the authorization answer carries (default: the issuer); another to test the mix-up defense. */
  answerIss?: string;
  /** Seconds an access token lives. */
  accessTtlSeconds?: number;
}

interface Grant {
  sub: string;
  scope: string;
  family: string;
}

export interface OAuthUpstream {
  url: string;
  issuer: string;
  /** Who the next authorization signs in as. */
  nextSubject: string;
  /** Scope granted at the next authorization (default: what was asked for). */
  grantScope: string | null;
  authorizeRequests: URLSearchParams[];
  tokenRequests: URLSearchParams[];
  registrations: Record<string, unknown>[];
  revoked: string[];
  /** Clients the token endpoint no longer knows (answered 401 invalid_client, to force re-registration). */
  forgottenClients: Set<string>;
  /** Refresh tokens presented a second time (refused). */
  reused: string[];
  /** Every access token issued, with its subject. */
  accessTokens: Map<string, Grant & { expiresAt: number }>;
  refreshTokens: Map<string, Grant & { used: boolean }>;
  /** Ends every access token now (as if their lifetime passed). */
  expireAccessTokens(): void;
  /** Spends a subject's current refresh token behind Loadout's back (a stolen token used first). */
  spendRefreshToken(sub: string): void;
  close(): Promise<void>;
}

const random = () => randomBytes(24).toString("base64url");
const s256 = (verifier: string) => createHash("sha256").update(verifier).digest("base64url");

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => resolve(Buffer.concat(chunks)));
    req.on("error", reject);
  });
}

const json = (res: ServerResponse, status: number, body: unknown) =>
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" }).end(JSON.stringify(body));

export async function startOAuthUpstream(options: OAuthUpstreamOptions = {}): Promise<OAuthUpstream> {
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const issuer = options.issuer ?? origin;
  const url = `${origin}/mcp`;
  const codes = new Map<string, Grant & { challenge: string; redirectUri: string; resource: string | null }>();
  const upstream: OAuthUpstream = {
    url,
    issuer,
    nextSubject: "alice",
    grantScope: null,
    authorizeRequests: [],
    tokenRequests: [],
    registrations: [],
    revoked: [],
    forgottenClients: new Set(),
    reused: [],
    accessTokens: new Map(),
    refreshTokens: new Map(),
    expireAccessTokens() {
      for (const grant of this.accessTokens.values()) grant.expiresAt = 0;
    },
    spendRefreshToken(sub) {
      // The latest one: what Loadout holds now.
      const live = [...this.refreshTokens.values()].filter((g) => g.sub === sub && !g.used).at(-1);
      if (!live) throw new Error(`no live refresh token for ${sub}`);
      live.used = true;
      issue({ sub, scope: live.scope, family: live.family });
    },
    close: async () => {
      await handler.close();
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeAllConnections();
      await closed;
    },
  };
  const ttl = options.accessTtlSeconds ?? 3600;
  function issue(grant: Grant) {
    const access = `up_at_${random()}`;
    const refresh = `up_rt_${random()}`;
    upstream.accessTokens.set(access, { ...grant, expiresAt: Date.now() + ttl * 1000 });
    upstream.refreshTokens.set(refresh, { ...grant, used: false });
    return {
      access_token: access,
      token_type: "Bearer",
      expires_in: ttl,
      refresh_token: refresh,
      scope: grant.scope,
    };
  }
  const oauthMetadata = {
    issuer,
    authorization_endpoint: `${origin}/authorize`,
    token_endpoint: `${origin}/token`,
    registration_endpoint: `${origin}/register`,
    revocation_endpoint: `${origin}/revoke`,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none"],
    scopes_supported: ["read", "admin"],
    authorization_response_iss_parameter_supported: true,
    ...(options.omitPkceMethods ? {} : { code_challenge_methods_supported: ["S256"] }),
  };
  const metadataOptions = { oauthMetadata, resourceServerUrl: new URL(url), scopesSupported: ["read"] };
  const verifier = {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const grant = upstream.accessTokens.get(token);
      if (!grant || grant.expiresAt <= Date.now())
        throw new OAuthError(OAuthErrorCode.InvalidToken, "token expired or unknown");
      return {
        token,
        clientId: "loadout",
        scopes: grant.scope.split(" ").filter(Boolean),
        expiresAt: Math.floor(grant.expiresAt / 1000),
        extra: { sub: grant.sub },
      };
    },
  };
  const gate = requireBearerAuth({
    verifier,
    resourceMetadataUrl: `${origin}/.well-known/oauth-protected-resource/mcp`,
  });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer({ name: "oauth-upstream", version: "1.0.0" }, { capabilities: { tools: {} } });
      server.registerTool(
        "whoami",
        {
          title: "Who am I",
          description: "Says whose token called.",
          inputSchema: z.object({}),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
        },
        async (_args, ctx) => ({
          content: [{ type: "text" as const, text: `you are ${String(ctx.http?.authInfo?.extra?.sub)}` }],
        }),
      );
      server.registerTool(
        "admin_action",
        {
          title: "Admin action",
          description: "Needs the admin scope.",
          inputSchema: z.object({}),
          annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
          scopeChallenge: requireScopes("read", "admin"),
        },
        async (_args, ctx) => ({
          content: [{ type: "text" as const, text: `admin done for ${String(ctx.http?.authInfo?.extra?.sub)}` }],
        }),
      );
      return server;
    },
    { legacy: "stateless" },
  );

  http.on("request", (req, res) => {
    const here = new URL(req.url ?? "/", origin);
    readBody(req)
      .then(async (body) => {
        const headers = new Headers();
        for (const [name, value] of Object.entries(req.headers))
          if (typeof value === "string") headers.set(name, value);
        const method = req.method ?? "GET";
        const request = new Request(here, {
          method,
          headers,
          ...(method === "GET" || method === "HEAD" ? {} : { body: new Uint8Array(body) }),
        });
        // The SDK builds the resource metadata only for an https (or localhost) issuer: an
        // authorization server on a private address is named by hand.
        if (options.issuer && here.pathname.startsWith("/.well-known/oauth-protected-resource"))
          return json(res, 200, { resource: url, authorization_servers: [issuer], scopes_supported: ["read"] });
        const documents = oauthMetadataResponse(request, metadataOptions);
        if (documents) return writeResponse(res, documents);
        if (here.pathname === "/authorize") {
          const q = here.searchParams;
          upstream.authorizeRequests.push(q);
          const code = random();
          codes.set(code, {
            sub: upstream.nextSubject,
            scope: upstream.grantScope ?? q.get("scope") ?? "read",
            family: random(),
            challenge: q.get("code_challenge") ?? "",
            redirectUri: q.get("redirect_uri") ?? "",
            resource: q.get("resource"),
          });
          const back = new URL(q.get("redirect_uri") ?? "");
          back.searchParams.set("code", code);
          back.searchParams.set("state", q.get("state") ?? "");
          back.searchParams.set("iss", options.answerIss ?? issuer);
          res.writeHead(302, { location: back.href }).end();
          return;
        }
        if (here.pathname === "/register" && method === "POST") {
          const metadata = JSON.parse(body.toString("utf8")) as Record<string, unknown>;
          upstream.registrations.push(metadata);
          return json(res, 201, { ...metadata, client_id: `dcr_${random()}`, client_id_issued_at: 0 });
        }
        if (here.pathname === "/revoke" && method === "POST") {
          const form = new URLSearchParams(body.toString("utf8"));
          const token = form.get("token") ?? "";
          upstream.revoked.push(token);
          upstream.refreshTokens.delete(token);
          upstream.accessTokens.delete(token);
          return res.writeHead(200).end();
        }
        if (here.pathname === "/token" && method === "POST") {
          const form = new URLSearchParams(body.toString("utf8"));
          upstream.tokenRequests.push(form);
          const refuse = (error: string, description: string) =>
            json(res, 400, { error, error_description: description });
          if (upstream.forgottenClients.has(form.get("client_id") ?? ""))
            return json(res, 401, { error: "invalid_client", error_description: "unknown client" });
          if (form.get("grant_type") === "authorization_code") {
            const code = codes.get(form.get("code") ?? "");
            codes.delete(form.get("code") ?? "");
            if (!code) return refuse("invalid_grant", "unknown code");
            if (s256(form.get("code_verifier") ?? "") !== code.challenge) return refuse("invalid_grant", "PKCE failed");
            if (form.get("redirect_uri") !== code.redirectUri) return refuse("invalid_grant", "redirect_uri differs");
            if (!form.get("resource") || form.get("resource") !== code.resource)
              return refuse("invalid_target", "resource missing or different");
            return json(res, 200, issue(code));
          }
          if (form.get("grant_type") === "refresh_token") {
            const token = form.get("refresh_token") ?? "";
            const grant = upstream.refreshTokens.get(token);
            if (!grant) return refuse("invalid_grant", "unknown refresh token");
            if (grant.used) {
              // Reuse: the token was stolen or replayed; the whole family ends.
              upstream.reused.push(token);
              for (const [other, g] of upstream.refreshTokens)
                if (g.family === grant.family) upstream.refreshTokens.delete(other);
              for (const [other, g] of upstream.accessTokens)
                if (g.family === grant.family) upstream.accessTokens.delete(other);
              return refuse("invalid_grant", "refresh token reused");
            }
            if (!form.get("resource")) return refuse("invalid_target", "resource missing");
            grant.used = true;
            return json(res, 200, issue({ sub: grant.sub, scope: grant.scope, family: grant.family }));
          }
          return refuse("unsupported_grant_type", "no");
        }
        if (here.pathname === "/mcp") {
          const auth = await gate(request);
          if (auth instanceof Response) return writeResponse(res, auth);
          return writeResponse(res, await handler.fetch(request, { authInfo: auth }));
        }
        res.writeHead(404).end();
      })
      .catch((error: unknown) => {
        res.writeHead(500).end(String(error));
      });
  });
  return upstream;
}

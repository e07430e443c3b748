import { z } from "@hono/zod-openapi";
import { Line, NullableTimestamp } from "./common";

export const ConnectServerInput = z
  .strictObject({
    shared: z.boolean().optional().openapi({
      description:
        "Connect one account for the whole team (owners and admins): every member's calls then use it. Default: your own account.",
    }),
    clientId: Line().min(1).max(500).optional().openapi({
      description:
        "A client you registered at the server's authorization server yourself (its redirect URI is this Loadout's /oauth/upstream/callback); otherwise Loadout registers itself.",
    }),
    clientSecret: Line().min(1).max(2000).optional().openapi({ description: "That client's secret, if it has one." }),
  })
  .openapi("ConnectServerInput");
export type ConnectServerInput = z.infer<typeof ConnectServerInput>;

export const ConnectServerResult = z
  .object({
    authorizationUrl: z.string().openapi({
      description: "Open this in the browser: sign in there, and the server's page comes back connected.",
    }),
  })
  .openapi("ConnectServerResult");

export const DisconnectQuery = z.object({
  shared: z
    .enum(["1", "0", "true", "false"])
    .optional()
    .openapi({ param: { name: "shared", in: "query" }, description: "1: the team's connection (owners and admins)." }),
});

export const ConnectionViewSchema = z
  .object({
    owner: z.enum(["me", "shared", "member"]),
    email: z.string().nullable().openapi({ description: "The member's email (in an admin's list of members)." }),
    state: z.enum(["connected", "needs_sign_in", "not_connected"]),
    scopes: z.array(z.string()).openapi({ description: "The scopes the authorization server granted." }),
    stepUpScopes: z.array(z.string()).openapi({
      description: "Scopes the server asked for since (403 insufficient_scope): Connect again to grant them.",
    }),
    expiresAt: NullableTimestamp,
    connectedAt: NullableTimestamp,
    lastError: z.string().nullable().openapi({ description: "Why it needs a new sign-in." }),
  })
  .openapi("ServerConnection");
export type ConnectionView = z.infer<typeof ConnectionViewSchema>;

export const ServerConnectionsSchema = z
  .object({
    auth: z.enum(["none", "headers", "oauth"]),
    credentials: z.enum(["per-user", "shared"]).nullable(),
    issuer: z.string().nullable(),
    scope: z.string().nullable().openapi({ description: "The scope the server asks for." }),
    mine: ConnectionViewSchema,
    shared: ConnectionViewSchema.nullable(),
    mayShare: z.boolean().openapi({ description: "Whether the caller may connect or disconnect the team's sign-in." }),
    members: z
      .array(ConnectionViewSchema)
      .openapi({ description: "Each member's own connection (owners and admins only)." }),
  })
  .openapi("ServerConnections");
export type ServerConnectionsView = z.infer<typeof ServerConnectionsSchema>;

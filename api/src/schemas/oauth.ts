import { z } from "@hono/zod-openapi";
import { Line, NullableTimestamp, Timestamp } from "./common";

/** RFC 7591 registration request. Unknown members are ignored, as the RFC asks. */
export const RegisterClientInput = z.object({
  redirect_uris: z.array(Line().max(2000)).min(1, "redirect_uris needs at least one URI").max(10),
  client_name: Line().trim().min(1).max(200).optional(),
  client_uri: Line().max(2000).optional(),
  logo_uri: Line().max(2000).optional(),
  application_type: z.enum(["web", "native"]).optional(),
  token_endpoint_auth_method: Line().max(100).optional(),
  grant_types: z.array(Line().max(100)).max(10).optional(),
  response_types: z.array(Line().max(100)).max(10).optional(),
  scope: Line().max(1000).optional(),
});
export type RegisterClientInput = z.infer<typeof RegisterClientInput>;

/** A client ID metadata document: the same members, plus the `client_id` that must equal its URL. */
export const ClientMetadataDocument = RegisterClientInput.extend({
  client_id: Line().max(2000),
  client_name: Line().trim().min(1).max(200),
});
export type ClientMetadataDocument = z.infer<typeof ClientMetadataDocument>;

const Mode = z.enum(["agent", "plan", "goal"]);

export const AuthorizationIdParam = z.object({
  id: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "oaz_01jd…" }),
});

export const OAuthClientView = z
  .object({
    name: z.string(),
    kind: z.enum(["dynamic", "metadata"]).openapi({
      description:
        "`metadata`: known by a client ID metadata document fetched from its domain; `dynamic`: self-registered.",
    }),
    clientId: z.string(),
    domain: z
      .string()
      .openapi({ description: "The domain the client is verified to be from (metadata), or redirects to (dynamic)." }),
    verified: z
      .boolean()
      .openapi({ description: "Whether `domain` was verified by fetching the client's metadata document from it." }),
    uri: z.string().nullable(),
  })
  .openapi("OAuthClient");

export const AuthorizationRequestView = z
  .object({
    id: z.string(),
    client: OAuthClientView,
    redirectUri: z.string(),
    resource: z.string(),
    scopes: z.array(z.object({ name: z.string(), description: z.string() })),
    expiresAt: Timestamp,
  })
  .openapi("AuthorizationRequest");
export type AuthorizationRequestView = z.infer<typeof AuthorizationRequestView>;

export const AuthorizationDecisionInput = z
  .strictObject({
    approve: z.boolean({ error: "approve is required: true to allow, false to deny" }),
    workspace: Line()
      .min(1)
      .max(64)
      .nullable()
      .optional()
      .openapi({ description: "Narrow the connection to one workspace (its slug); omit or null for all of yours." }),
    project: Line()
      .trim()
      .max(1024)
      .nullable()
      .optional()
      .openapi({ description: "Pin a project path, as a saved endpoint does." }),
    mode: Mode.nullable().optional().openapi({ description: "Pin a mode; omit to leave it to the client." }),
  })
  .openapi("AuthorizationDecisionInput");
export type AuthorizationDecisionInput = z.infer<typeof AuthorizationDecisionInput>;

export const AuthorizationDecisionResult = z
  .object({
    redirectTo: z.string().openapi({
      description:
        "Where to send the browser: the client's redirect URI with the code (or the error), `state` and `iss`.",
    }),
  })
  .openapi("AuthorizationDecisionResult");

export const ConnectedAppSchema = z
  .object({
    id: z.string(),
    client: OAuthClientView,
    resource: z.string(),
    scopes: z.array(z.string()),
    workspace: z.object({ slug: z.string(), name: z.string() }).nullable(),
    project: z.string().nullable(),
    mode: Mode.nullable(),
    createdAt: Timestamp,
    lastUsedAt: NullableTimestamp,
  })
  .openapi("ConnectedApp");
export type ConnectedAppView = z.infer<typeof ConnectedAppSchema>;

export const ConnectedAppIdParam = z.object({
  id: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "ogr_01jd…" }),
});

import { z } from "@hono/zod-openapi";
import { SCOPES } from "../domain/scopes";
import { Line, NullableTimestamp, Timestamp } from "./common";

export const CreateTokenInput = z
  .strictObject({
    name: Line({ error: "name is required" })
      .trim()
      .min(1, "name is required")
      .max(64, "name must have at most 64 characters"),
    scopes: z
      .array(z.enum(SCOPES, { error: `each scope must be one of: ${SCOPES.join(", ")}` }), {
        error: "scopes is required",
      })
      .min(1, "give at least one scope")
      .refine((s) => new Set(s).size === s.length, "scopes must not repeat"),
    expiresInDays: z
      .number()
      .int("expiresInDays must be a whole number")
      .min(1, "expiresInDays must be between 1 and 365")
      .max(365, "expiresInDays must be between 1 and 365")
      .optional()
      .openapi({ description: "Days until the token expires; omit for a token that does not expire." }),
    workspace: Line()
      .min(1)
      .max(64)
      .optional()
      .openapi({ description: "Narrow the token to one workspace (its slug)." }),
  })
  .openapi("CreateTokenInput");
export type CreateTokenInput = z.infer<typeof CreateTokenInput>;

export const TokenSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().openapi({ description: "The first characters of the secret, to tell tokens apart." }),
    scopes: z.array(z.enum(SCOPES)),
    workspace: z.object({ slug: z.string(), name: z.string() }).nullable(),
    createdAt: Timestamp,
    expiresAt: NullableTimestamp,
    lastUsedAt: NullableTimestamp,
    revokedAt: NullableTimestamp,
    status: z.enum(["active", "revoked", "expired"]),
  })
  .openapi("Token");
export type TokenView = z.infer<typeof TokenSchema>;

export const CreatedToken = z
  .object({
    token: TokenSchema,
    secret: z.string().openapi({ description: "Shown once; store it now.", example: "lo_…" }),
  })
  .openapi("CreatedToken");

export const TokenIdParam = z.object({
  id: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" }, example: "tok_01jd…" }),
});

import { z } from "@hono/zod-openapi";
import { ERROR_CODES } from "../errors";

export const ErrorSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(ERROR_CODES) as [keyof typeof ERROR_CODES, ...(keyof typeof ERROR_CODES)[]]),
      message: z.string(),
      requestId: z.string(),
      details: z
        .array(z.object({ path: z.string(), message: z.string(), line: z.number().int().optional() }))
        .optional(),
    }),
  })
  .openapi("Error");

export const Timestamp = z.string().openapi({ format: "date-time", example: "2026-11-29T12:00:00.000Z" });
export const NullableTimestamp = Timestamp.nullable();

export const WorkspaceParam = z.object({
  ws: z
    .string()
    .min(1)
    .max(64)
    .openapi({
      param: { name: "ws", in: "path" },
      description: "A workspace slug, or `me` for your personal workspace.",
      example: "me",
    }),
});

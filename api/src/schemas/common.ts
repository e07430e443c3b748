import { z } from "@hono/zod-openapi";
import { type TextKind, textProblem } from "../domain/text";
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

/**
 * A string field that refuses what `textProblem` refuses, with the field named by its path.
 * Every input string goes through this (or `Text`), so no operation can store or query with one.
 */
export function Line(params?: { error?: string }, kind: TextKind = "line") {
  return z.string(params).check((ctx) => {
    const problem = textProblem(ctx.value, kind);
    if (problem) ctx.issues.push({ code: "custom", input: ctx.value, message: problem });
  });
}
export const Text = (params?: { error?: string }) => Line(params, "text");
export const FileText = (params?: { error?: string }) => Line(params, "file");

export const WorkspaceParam = z.object({
  ws: Line()
    .min(1)
    .max(64)
    .openapi({
      param: { name: "ws", in: "path" },
      description: "A workspace slug, or `me` for your personal workspace.",
      example: "me",
    }),
});

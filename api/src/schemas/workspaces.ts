import { z } from "@hono/zod-openapi";
import { ROLES } from "@loadout/db";
import { slugProblem } from "../domain/names";
import { Line, Timestamp } from "./common";

export const Slug = Line({ error: "slug is required" })
  .superRefine((value, ctx) => {
    const problem = slugProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: `slug "${value}" is not valid: ${problem}` });
  })
  .openapi({ example: "acme" });

export const CreateWorkspaceInput = z
  .strictObject({
    slug: Slug,
    name: Line({ error: "name is required" })
      .trim()
      .min(1, "name is required")
      .max(100, "name must have at most 100 characters"),
  })
  .openapi("CreateWorkspaceInput");
export type CreateWorkspaceInput = z.infer<typeof CreateWorkspaceInput>;

export const WorkspaceSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    name: z.string(),
    kind: z.enum(["personal", "team"]),
    role: z.enum(ROLES),
    createdAt: Timestamp,
  })
  .openapi("Workspace");
export type WorkspaceView = z.infer<typeof WorkspaceSchema>;

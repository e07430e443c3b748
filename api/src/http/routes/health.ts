import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { defineRoute, errorResponse, jsonContent } from "../define-route";
import type { AppEnv } from "../env";

const health = defineRoute(
  { public: true },
  {
    method: "get",
    path: "/healthz",
    tags: ["health"],
    summary: "Liveness and database reachability",
    responses: {
      200: jsonContent(z.object({ status: z.literal("ok") }), "The database answers."),
      503: errorResponse("The database does not answer."),
    },
  },
);

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  app.openapi(health, async (c) => {
    try {
      await c.get("db").execute(sql`select 1`);
    } catch {
      return c.json(
        {
          error: {
            code: "unavailable" as const,
            message: "The database does not answer.",
            requestId: c.get("requestId"),
          },
        },
        503,
      );
    }
    return c.json({ status: "ok" as const }, 200);
  });
}

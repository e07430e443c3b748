import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { probeDatabase } from "../../services/health";
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

/**
 * The database must answer within this: a load balancer polling /healthz needs its answer at
 * once, and a database that takes longer is as good as away for the requests behind it.
 */
export const HEALTH_TIMEOUT_MS = 800;

export function registerHealth(app: OpenAPIHono<AppEnv>) {
  app.openapi(health, async (c) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error("the database took too long")), HEALTH_TIMEOUT_MS);
      });
      // The probe is left to settle on its own when it loses the race; its failure then is moot.
      const probe = probeDatabase(c.get("db"));
      probe.catch(() => {});
      await Promise.race([probe, late]);
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
        { "Retry-After": "2" },
      );
    } finally {
      clearTimeout(timer);
    }
    return c.json({ status: "ok" as const }, 200);
  });
}

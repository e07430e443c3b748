import { z } from "@hono/zod-openapi";
import { OUTCOMES } from "../domain/activity/outcomes";
import { Line, Timestamp } from "./common";

const When = Line()
  .refine((v) => !Number.isNaN(Date.parse(v)), "use an ISO 8601 time such as 2026-11-29T12:00:00Z")
  .optional();

export const ActivityQuery = z
  .strictObject({
    actor: Line()
      .min(1)
      .max(254)
      .optional()
      .openapi({ description: "Only events by this user: a user id (`usr_…`) or an email." }),
    item: Line().min(1).max(300).optional().openapi({
      description:
        "Only events about this item: a skill's or persona's name (`acme/review` for a call naming a team's), a server's slug, a member's or invitee's email, the tool of a call that names no item, or the target's id.",
    }),
    kind: Line()
      .regex(/^[a-z_]{1,32}$/, "kind is `call`, `change`, or an entity such as skill, server, member, invite, token")
      .optional()
      .openapi({
        description:
          "`call` (MCP calls), `change` (everything else), or an entity: skill, persona, server, member, invite, token, workspace, session, endpoint, project.",
      }),
    from: When.openapi({ description: "Events at or after this time (ISO 8601)." }),
    to: When.openapi({ description: "Events before this time (ISO 8601)." }),
    limit: z.coerce
      .number()
      .int("limit must be a whole number")
      .min(1, "limit must be between 1 and 200")
      .max(200, "limit must be between 1 and 200")
      .default(50),
    cursor: Line().max(2048).optional().openapi({ description: "`nextCursor` of the previous page." }),
  })
  .openapi("ActivityQuery");
export type ActivityQuery = z.infer<typeof ActivityQuery>;

export const ActivityEvent = z
  .object({
    id: z.string(),
    at: Timestamp,
    kind: z.enum(["call", "change"]),
    action: z.string().openapi({ example: "skill.updated" }),
    actor: z.object({ id: z.string(), email: z.string(), name: z.string() }).nullable(),
    token: z.object({ id: z.string(), name: z.string() }).nullable(),
    target: z.object({ type: z.string(), id: z.string() }),
    item: z.string(),
    data: z.record(z.string(), z.unknown()),
    call: z
      .object({
        method: z.string(),
        tool: z.string(),
        client: z.string().nullable(),
        outcome: z.enum(OUTCOMES),
        ms: z.number(),
        mode: z.string(),
        project: z.string().nullable(),
        server: z.string().nullable().openapi({ description: "The upstream server a proxied call went to." }),
        endpoint: z.string().nullable().openapi({ description: "The saved endpoint the client used, if any." }),
      })
      .nullable()
      .openapi({ description: "For MCP calls: which client called which tool, how it ended and how long it took." }),
  })
  .openapi("ActivityEvent");
export type ActivityEvent = z.infer<typeof ActivityEvent>;

export const ActivityPage = z
  .object({ events: z.array(ActivityEvent), nextCursor: z.string().nullable() })
  .openapi("ActivityPage");

export const UsageQuery = z
  .strictObject({
    days: z.coerce
      .number()
      .int("days must be a whole number")
      .min(1, "days must be between 1 and 90")
      .max(90, "days must be between 1 and 90")
      .default(30),
  })
  .openapi("UsageQuery");

const UsageSeries = z.object({
  name: z.string(),
  calls: z.number().int(),
  failures: z.number().int(),
  days: z.array(z.number().int()).openapi({ description: "Calls per day, oldest first." }),
});

export const Usage = z
  .object({
    from: z.string().openapi({ example: "2026-10-31" }),
    to: z.string().openapi({ example: "2026-11-29" }),
    days: z.array(
      z.object({ date: z.string(), calls: z.number().int(), errors: z.number().int(), refusals: z.number().int() }),
    ),
    clients: z.array(UsageSeries),
    tools: z.array(UsageSeries),
    outcomes: z.object(
      Object.fromEntries(OUTCOMES.map((o) => [o, z.number().int()])) as Record<(typeof OUTCOMES)[number], z.ZodNumber>,
    ),
  })
  .openapi("Usage");

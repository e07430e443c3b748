import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { csrfTokenFor } from "../../auth/secrets";
import { SCOPES } from "../../domain/scopes";
import { UserSchema } from "../../schemas/accounts";
import { WorkspaceSchema } from "../../schemas/workspaces";
import { getMe } from "../../services/accounts/get-me";
import { actionContext } from "../action-context";
import { defineRoute, jsonContent } from "../define-route";
import type { AppEnv } from "../env";

const MeSchema = z
  .object({
    user: UserSchema,
    workspaces: z.array(WorkspaceSchema),
    principal: z.object({
      kind: z.enum(["session", "token", "oauth"]),
      scopes: z.array(z.enum(SCOPES)),
      tokenId: z.string().optional(),
      workspace: z.string().nullable().openapi({ description: "The slug a token is narrowed to, or null." }),
    }),
    csrfToken: z
      .string()
      .nullable()
      .openapi({ description: "For console sessions: the value to send as x-csrf-token." }),
    instance: z
      .object({
        loopbackUpstreams: z.boolean().openapi({
          description:
            "Whether remote MCP servers may live on this machine (http on loopback): LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1. Otherwise upstream URLs must be public https.",
        }),
      })
      .openapi({ description: "How this Loadout is run, where it changes what the console accepts." }),
  })
  .openapi("Me");

const meRoute = defineRoute(
  { scope: null },
  {
    method: "get",
    path: "/v1/me",
    tags: ["accounts"],
    summary: "The caller: user, workspaces with roles, and how it is authenticated",
    responses: { 200: jsonContent(MeSchema, "The caller.") },
  },
);

export function registerMe(app: OpenAPIHono<AppEnv>) {
  app.openapi(meRoute, async (c) => {
    const ctx = actionContext(c);
    const { user, workspaces } = await getMe({ ctx });
    const p = ctx.principal;
    return c.json(
      {
        user: { ...user, createdAt: user.createdAt.toISOString() },
        workspaces,
        principal: {
          kind: p.kind,
          scopes: [...p.scopes],
          ...(p.kind === "token" ? { tokenId: p.tokenId } : {}),
          workspace: p.workspaceId ? (workspaces.find((w) => w.id === p.workspaceId)?.slug ?? null) : null,
        },
        csrfToken: p.kind === "session" ? csrfTokenFor(c.get("csrfKey"), p.sessionId) : null,
        instance: { loopbackUpstreams: c.get("deps").allowLoopbackUpstreams ?? false },
      },
      200,
    );
  });
}

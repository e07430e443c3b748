import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { CreatedToken, CreateTokenInput, TokenIdParam, TokenSchema } from "../../schemas/tokens";
import { createToken } from "../../services/tokens/create";
import { listTokens } from "../../services/tokens/list";
import { revokeToken } from "../../services/tokens/revoke";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";

const tags = ["tokens"];

const createTokenRoute = defineRoute(
  { scope: "admin" },
  {
    method: "post",
    path: "/v1/tokens",
    tags,
    summary: "Create an API token; the secret is in this response only",
    request: jsonRequest(CreateTokenInput),
    responses: {
      201: jsonContent(CreatedToken, "The token and its secret."),
      404: errorResponse("The workspace to narrow to was not found."),
    },
  },
);

const listTokensRoute = defineRoute(
  { scope: "admin" },
  {
    method: "get",
    path: "/v1/tokens",
    tags,
    summary: "The caller's API tokens, newest first (never their secrets)",
    responses: { 200: jsonContent(z.object({ tokens: z.array(TokenSchema) }), "Tokens.") },
  },
);

const revokeTokenRoute = defineRoute(
  { scope: "admin" },
  {
    method: "delete",
    path: "/v1/tokens/{id}",
    tags,
    summary: "Revoke a token; it stops working at once",
    request: { params: TokenIdParam },
    responses: {
      204: { description: "Revoked." },
      404: errorResponse("No such token among the caller's."),
    },
  },
);

export function registerTokens(app: OpenAPIHono<AppEnv>) {
  app.openapi(createTokenRoute, async (c) =>
    c.json(await createToken({ ctx: actionContext(c), input: c.req.valid("json") }), 201),
  );
  app.openapi(listTokensRoute, async (c) => c.json({ tokens: await listTokens({ ctx: actionContext(c) }) }, 200));
  app.openapi(revokeTokenRoute, async (c) => {
    await revokeToken({ ctx: actionContext(c), input: { id: c.req.valid("param").id } });
    return c.body(null, 204);
  });
}

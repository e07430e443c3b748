import { type OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { deleteCookie, setCookie } from "hono/cookie";
import { csrfTokenFor } from "../../auth/secrets";
import { LogInInput, type PasswordJudgeSource, SessionResult, setupInput, signUpInput } from "../../schemas/accounts";
import type { AccountUser } from "../../services/accounts/create-account";
import { logIn } from "../../services/accounts/log-in";
import { logOut } from "../../services/accounts/log-out";
import type { NewSession } from "../../services/accounts/sessions";
import { completeSetup, hasAnyAccount } from "../../services/accounts/setup";
import { type AccountContext, signUp } from "../../services/accounts/sign-up";
import { actionContext } from "../action-context";
import { defineRoute, errorResponse, jsonContent, jsonRequest } from "../define-route";
import type { AppEnv } from "../env";
import { CSRF_COOKIE, SESSION_COOKIE } from "../middleware/auth";

const tags = ["accounts"];

const signUpRoute = (judge: PasswordJudgeSource) =>
  defineRoute(
    { public: true },
    {
      method: "post",
      path: "/v1/auth/signup",
      tags,
      summary: "Create an account and sign in",
      request: jsonRequest(signUpInput(judge)),
      responses: {
        201: jsonContent(SessionResult, "Signed up; the session cookie is set."),
        409: errorResponse("An account with this email exists."),
        429: errorResponse("Too many sign-ups from this address."),
      },
    },
  );

const logInRoute = defineRoute(
  { public: true },
  {
    method: "post",
    path: "/v1/auth/login",
    tags,
    summary: "Sign in with email and password",
    request: jsonRequest(LogInInput),
    responses: {
      200: jsonContent(SessionResult, "Signed in; the session cookie is set."),
      401: errorResponse("The email or password is not right."),
      429: errorResponse("Too many attempts for this account or from this address."),
    },
  },
);

const logOutRoute = defineRoute(
  { scope: null },
  {
    method: "post",
    path: "/v1/auth/logout",
    tags,
    summary: "End the console session",
    responses: { 204: { description: "Signed out; cookies cleared." } },
  },
);

const setupStatusRoute = defineRoute(
  { public: true },
  {
    method: "get",
    path: "/v1/auth/setup",
    tags,
    summary: "Whether the instance still waits for its first account",
    responses: { 200: jsonContent(z.object({ required: z.boolean() }), "Setup status.") },
  },
);

const setupRoute = (judge: PasswordJudgeSource) =>
  defineRoute(
    { public: true },
    {
      method: "post",
      path: "/v1/auth/setup",
      tags,
      summary: "Create the first account with the one-time setup link's token",
      request: jsonRequest(setupInput(judge)),
      responses: {
        201: jsonContent(SessionResult, "The first account exists; the session cookie is set."),
        403: errorResponse("The setup token is wrong or was used."),
      },
    },
  );

function accountContext(c: Context<AppEnv>): AccountContext {
  const deps = c.get("deps");
  return {
    db: c.get("db"),
    requestId: c.get("requestId"),
    now: c.get("now"),
    hasher: deps.hasher,
    client: { address: deps.clientAddress?.(c) ?? null, userAgent: c.req.header("user-agent") ?? null },
  };
}

function startConsoleSession(c: Context<AppEnv>, user: AccountUser, session: NewSession) {
  const secure = c.get("deps").secureCookies;
  const csrfToken = csrfTokenFor(c.get("csrfKey"), session.sessionId);
  const common = { path: "/", sameSite: "Lax" as const, secure, expires: session.expiresAt };
  setCookie(c, SESSION_COOKIE, session.secret, { ...common, httpOnly: true });
  setCookie(c, CSRF_COOKIE, csrfToken, common);
  return { user: { ...user, createdAt: user.createdAt.toISOString() }, csrfToken };
}

/** `judge` is the password-strength rule, its dictionary loaded by the host (AppDeps.passwordDictionary). */
export function registerAuth(app: OpenAPIHono<AppEnv>, judge: PasswordJudgeSource) {
  app.openapi(signUpRoute(judge), async (c) => {
    const { user, session } = await signUp({ ctx: accountContext(c), input: c.req.valid("json") });
    return c.json(startConsoleSession(c, user, session), 201);
  });

  app.openapi(logInRoute, async (c) => {
    const { user, session } = await logIn({ ctx: accountContext(c), input: c.req.valid("json") });
    return c.json(startConsoleSession(c, user, session), 200);
  });

  app.openapi(logOutRoute, async (c) => {
    await logOut({ ctx: actionContext(c) });
    deleteCookie(c, SESSION_COOKIE, { path: "/" });
    deleteCookie(c, CSRF_COOKIE, { path: "/" });
    return c.body(null, 204);
  });

  app.openapi(setupStatusRoute, async (c) => c.json({ required: !(await hasAnyAccount(c.get("db"))) }, 200));

  app.openapi(setupRoute(judge), async (c) => {
    const { user, session } = await completeSetup({ ctx: accountContext(c), input: c.req.valid("json") });
    return c.json(startConsoleSession(c, user, session), 201);
  });
}

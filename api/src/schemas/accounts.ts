import { z } from "@hono/zod-openapi";
import { PASSWORD_MAX_CHARS, PASSWORD_MIN_CHARS, type PasswordJudge } from "../domain/accounts/password-strength";
import { Line, Timestamp } from "./common";

export const Email = Line({ error: "email is required" })
  .trim()
  .max(254, "email is too long (254 characters at most)")
  .pipe(z.email({ error: "email must be an address such as ada@example.com" }))
  .openapi({ example: "ada@example.com" });

// A new password may hold any visible character and spaces; control characters are refused like
// every other text field's: no keyboard types them, so one pasted in is a password its owner
// could not type again at sign-in.
const NewPassword = Line({ error: "password is required" })
  .min(PASSWORD_MIN_CHARS, `password must have at least ${PASSWORD_MIN_CHARS} characters`)
  .max(PASSWORD_MAX_CHARS, `password must have at most ${PASSWORD_MAX_CHARS} characters`)
  .openapi({ example: "correct horse battery staple" });

/**
 * The strength rule, ready to judge: the host loads its dictionary on first use (a static asset on
 * Workers), so it is asked for here, during validation; a failure to load is thrown as it is.
 */
export type PasswordJudgeSource = () => Promise<PasswordJudge>;

/** Strength is judged against the whole input: a password made of the account's own email or name is weak. */
function strongPassword(judge: PasswordJudgeSource) {
  return async (input: { email: string; password: string; name?: string | undefined }, ctx: z.RefinementCtx) => {
    if (input.password.length < PASSWORD_MIN_CHARS || input.password.length > PASSWORD_MAX_CHARS) return;
    const { problem } = (await judge())(input.password, [input.email, input.name ?? ""]);
    if (problem) ctx.addIssue({ code: "custom", path: ["password"], message: problem });
  };
}

const Name = Line().trim().max(100, "name must have at most 100 characters").openapi({ example: "Ada Lovelace" });

const SignUpFields = z.strictObject({ email: Email, password: NewPassword, name: Name.optional() });
export const signUpInput = (judge: PasswordJudgeSource) =>
  SignUpFields.superRefine(strongPassword(judge)).openapi("SignUpInput");
export type SignUpInput = z.infer<typeof SignUpFields>;

export const LogInInput = z
  .strictObject({
    email: Email,
    password: z.string({ error: "password is required" }).min(1, "password is required").max(1024),
  })
  .openapi("LogInInput");
export type LogInInput = z.infer<typeof LogInInput>;

const SetupFields = z.strictObject({
  token: Line({ error: "token is required: open the setup link printed at start" }).min(1).max(200),
  email: Email,
  password: NewPassword,
  name: Name.optional(),
});
export const setupInput = (judge: PasswordJudgeSource) =>
  SetupFields.superRefine(strongPassword(judge)).openapi("SetupInput");
export type SetupInput = z.infer<typeof SetupFields>;

export const UserSchema = z
  .object({
    id: z.string().openapi({ example: "usr_01jd…" }),
    email: z.string(),
    name: z.string(),
    createdAt: Timestamp,
  })
  .openapi("User");

export const SessionResult = z.object({ user: UserSchema, csrfToken: z.string() }).openapi("SessionResult");

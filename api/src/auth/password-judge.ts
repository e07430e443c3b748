import { type PasswordDictionary, type PasswordJudge, passwordJudge } from "../domain/accounts/password-strength";
import { AppError, describeError } from "../errors";
import type { Logger } from "../logger";
import type { PasswordJudgeSource } from "../schemas/accounts";

export const PASSWORD_DICTIONARY_UNAVAILABLE =
  "New passwords cannot be checked right now: the password-strength dictionary could not be loaded. Try again in a minute.";

/**
 * The strength rule over the host's dictionary, loaded on the first new password and kept. A load
 * that fails answers 503 (logged with its cause) and is tried again on the next request.
 */
export function passwordJudgeSource(load: () => Promise<PasswordDictionary>, logger: Logger): PasswordJudgeSource {
  let judging: Promise<PasswordJudge> | undefined;
  return () => {
    judging ??= load().then(passwordJudge, (error: unknown) => {
      judging = undefined;
      logger.log("error", "password dictionary unavailable", { error: describeError(error) });
      throw new AppError("unavailable", PASSWORD_DICTIONARY_UNAVAILABLE);
    });
    return judging;
  };
}

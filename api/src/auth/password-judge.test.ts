import { describe, expect, it } from "vitest";
import { commonPasswordDictionary } from "../domain/accounts/common-password-dictionary";
import { AppError } from "../errors";
import { memoryLogger } from "../logger";
import { PASSWORD_DICTIONARY_UNAVAILABLE, passwordJudgeSource } from "./password-judge";

describe("passwordJudgeSource", () => {
  it("loads the dictionary once and judges with it", async () => {
    let loads = 0;
    const judge = passwordJudgeSource(async () => {
      loads += 1;
      return commonPasswordDictionary;
    }, memoryLogger());
    expect((await judge())("password123").problem).toContain("it is a commonly used password");
    expect((await judge())("correct horse battery")).toEqual({ ok: true, score: 4, problem: null });
    expect(loads).toBe(1);
  });

  it("answers 503 when the dictionary cannot be loaded, logs why, and tries again next time", async () => {
    const logger = memoryLogger();
    let loads = 0;
    const judge = passwordJudgeSource(async () => {
      loads += 1;
      if (loads === 1) throw new Error("asset answered 404");
      return commonPasswordDictionary;
    }, logger);
    const failed = await judge().catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(AppError);
    expect(failed).toMatchObject({ code: "unavailable", status: 503, message: PASSWORD_DICTIONARY_UNAVAILABLE });
    expect(logger.entries).toEqual([
      { level: "error", msg: "password dictionary unavailable", error: "Error: asset answered 404" },
    ]);
    expect((await judge())("password123").ok).toBe(false);
    expect(loads).toBe(2);
  });
});

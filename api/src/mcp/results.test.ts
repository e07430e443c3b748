import { describe, expect, it } from "vitest";
import { AppError, INTERNAL_MESSAGE } from "../errors";
import { memoryLogger } from "../logger";
import { errorResult } from "./results";

describe("errorResult", () => {
  it("reports an AppError with its message and its details, one line each", () => {
    const ctx = { requestId: "req_1", logger: memoryLogger() };
    expect(errorResult(new AppError("not_found", "Skill x was not found."), ctx)).toEqual({
      content: [{ type: "text", text: "Skill x was not found." }],
      isError: true,
    });
    const refused = new AppError("invalid_request", "The skill is not valid.", {
      details: [{ path: "SKILL.md", line: 3, message: "name must be lowercase" }],
    });
    expect(errorResult(refused, ctx).content[0]?.text).toBe(
      "The skill is not valid.\n- SKILL.md line 3: name must be lowercase",
    );
    expect(ctx.logger.entries).toEqual([]);
  });

  it("reports anything else without its detail, which goes to the log with the request id", () => {
    const logger = memoryLogger();
    const leaked = errorResult(new Error('Failed query: insert into "skills" params: skl_1,\u0000'), {
      requestId: "req_1",
      logger,
    });
    expect(leaked.isError).toBe(true);
    expect(leaked.content[0]?.text).toBe(`${INTERNAL_MESSAGE} (request id req_1)`);
    expect(JSON.stringify(leaked)).not.toContain("insert");
    expect(logger.entries).toEqual([expect.objectContaining({ level: "error", requestId: "req_1" })]);
  });

  it("throws a database out of reach as unavailable, for the transport to answer 503", () => {
    const logger = memoryLogger();
    const lost = Object.assign(new Error("Failed query: select 1"), {
      cause: Object.assign(new Error("terminating connection due to administrator command"), { code: "57P01" }),
    });
    let thrown: unknown;
    try {
      errorResult(lost, { requestId: "req_1", logger });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect((thrown as AppError).code).toBe("unavailable");
    expect((thrown as AppError).message).not.toContain("select");
    expect(logger.entries).toEqual([expect.objectContaining({ level: "warn", requestId: "req_1" })]);
  });
});

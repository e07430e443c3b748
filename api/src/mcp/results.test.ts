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
});

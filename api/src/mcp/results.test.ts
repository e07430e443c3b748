import { UpstreamRpcError } from "@loadout/workers";
import { describe, expect, it } from "vitest";
import { AppError, databaseUnavailableError, INTERNAL_MESSAGE } from "../errors";
import { memoryLogger } from "../logger";
import { errorResult, protocolErrorOf } from "./results";

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
    // An inner layer that already said so: thrown on as it is, never a tool's failure.
    const said = databaseUnavailableError();
    expect(() => errorResult(said, { requestId: "req_1", logger })).toThrow(said);
    // An upstream out of reach stays the tool's failure, in its own words.
    const upstream = new AppError("unavailable", "docs could not be reached (timeout); nothing was sent.");
    expect(errorResult(upstream, { requestId: "req_1", logger }).content[0]?.text).toMatch(/docs could not be reached/);
  });
});

describe("protocolErrorOf", () => {
  it("keeps refusals and the upstream's own errors, and says only that anything else failed", () => {
    const heard: unknown[] = [];
    const onInternal = (error: unknown) => heard.push(error);
    const refused = protocolErrorOf(new AppError("not_found", "Skill x was not found."), onInternal);
    expect(refused.message).toContain("Skill x was not found.");
    const upstream = protocolErrorOf(new UpstreamRpcError(-32602, "Unknown resource", { uri: "memo://x" }), onInternal);
    expect([upstream.code, upstream.message, upstream.data]).toEqual([-32602, "Unknown resource", { uri: "memo://x" }]);
    expect(heard).toEqual([]);
    const query = new Error('Failed query: select "content" from "skill_blobs" params: ws_1,sha256:ab');
    const leaked = protocolErrorOf(query, onInternal);
    expect(leaked.message).toContain(INTERNAL_MESSAGE);
    expect(leaked.message).not.toMatch(/select|skill_blobs|ws_1/);
    expect(leaked.code).toBe(-32603);
    expect(heard).toEqual([query]);
  });
});

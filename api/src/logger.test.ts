import { describe, expect, it } from "vitest";
import { humanLineLogger, type LogLevel, memoryLogger, withSetupReminder } from "./logger";

const at = () => new Date("2026-12-01T12:04:31.500Z");

function human() {
  const lines: Array<[string, LogLevel]> = [];
  return { lines, logger: humanLineLogger((line, level) => lines.push([line, level]), at) };
}

describe("humanLineLogger", () => {
  it("writes one short line per API, MCP and OAuth request", () => {
    const { lines, logger } = human();
    logger.log("info", "request", { requestId: "r1", method: "POST", path: "/v1/tokens", status: 201, ms: 8.26 });
    logger.log("info", "request", { requestId: "r2", method: "POST", path: "/mcp", status: 200, ms: 1.4 });
    logger.log("info", "request", { requestId: "r3", method: "GET", path: "/mcp/s/me/docs", status: 200, ms: 2 });
    logger.log("info", "request", { requestId: "r4", method: "POST", path: "/oauth/token", status: 400, ms: 3 });
    expect(lines).toEqual([
      ["12:04:31 POST /v1/tokens 201 8ms", "info"],
      ["12:04:31 POST /mcp 200 1ms", "info"],
      ["12:04:31 GET /mcp/s/me/docs 200 2ms", "info"],
      ["12:04:31 POST /oauth/token 400 3ms", "info"],
    ]);
  });

  it("leaves out the console's pages, scripts and the health check", () => {
    const { lines, logger } = human();
    for (const path of ["/", "/signin/", "/_next/static/chunks/app.js", "/healthz", "/mcpx", "/v1"])
      logger.log("info", "request", { requestId: "r", method: "GET", path, status: 200, ms: 1 });
    expect(lines).toEqual([]);
  });

  it("names the request id of a failed request, and writes other messages with their level and fields", () => {
    const { lines, logger } = human();
    logger.log("error", "request", { requestId: "req_9", method: "GET", path: "/v1/me", status: 500, ms: 4 });
    logger.log("warn", "servers over the per-session cap were skipped", { skipped: 2, ids: ["a"] });
    expect(lines).toEqual([
      ["12:04:31 GET /v1/me 500 4ms  request req_9", "error"],
      ['12:04:31 warn servers over the per-session cap were skipped  skipped=2 ids=["a"]', "warn"],
    ]);
  });
});

describe("withSetupReminder", () => {
  const request = (method: string, path: string, status: number) => ({ requestId: "r", method, path, status, ms: 1 });

  it("prints the setup link again each time the console asks about setup, until an account exists", () => {
    const printed: string[] = [];
    const inner = memoryLogger();
    const logger = withSetupReminder(inner, (text) => printed.push(text));
    logger.log("info", "request", request("GET", "/v1/auth/setup", 200));
    expect(printed).toEqual([]);
    logger.remind("http://127.0.0.1:8787/setup/#token=abc");
    logger.log("info", "request", request("GET", "/v1/me", 401));
    logger.log("info", "request", request("GET", "/v1/auth/setup", 200));
    expect(printed).toHaveLength(1);
    expect(printed[0]).toContain("http://127.0.0.1:8787/setup/#token=abc");
    logger.log("info", "request", request("POST", "/v1/auth/setup", 403));
    logger.log("info", "request", request("GET", "/v1/auth/setup", 200));
    expect(printed).toHaveLength(2);
    logger.log("info", "request", request("POST", "/v1/auth/setup", 201));
    logger.log("info", "request", request("GET", "/v1/auth/setup", 200));
    expect(printed).toHaveLength(2);
    // Every entry still reaches the wrapped logger.
    expect(inner.entries).toHaveLength(7);
  });

  it("stops once someone signs up instead", () => {
    const printed: string[] = [];
    const logger = withSetupReminder(memoryLogger(), (text) => printed.push(text));
    logger.remind("http://x/setup/#token=abc");
    logger.log("info", "request", request("POST", "/v1/auth/signup", 201));
    logger.log("info", "request", request("GET", "/v1/auth/setup", 200));
    expect(printed).toEqual([]);
  });
});

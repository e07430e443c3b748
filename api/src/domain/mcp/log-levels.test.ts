import { describe, expect, it } from "vitest";
import { heard, isLogLevel, LOG_LEVELS } from "./log-levels";

describe("log levels", () => {
  it("knows MCP's eight levels and nothing else", () => {
    expect(LOG_LEVELS).toHaveLength(8);
    for (const level of LOG_LEVELS) expect(isLogLevel(level)).toBe(true);
    for (const other of ["warn", "DEBUG", "", 3, null, undefined]) expect(isLogLevel(other)).toBe(false);
  });

  it("tells a message at or above the level set, and every message when none was set", () => {
    expect(heard("info", "debug")).toBe(false);
    expect(heard("info", "info")).toBe(true);
    expect(heard("info", "emergency")).toBe(true);
    expect(heard("error", "warning")).toBe(false);
    expect(heard(null, "debug")).toBe(true);
  });

  it("tells a message whose level it does not know", () => {
    expect(heard("emergency", "verbose")).toBe(true);
    expect(heard("emergency", undefined)).toBe(true);
  });
});

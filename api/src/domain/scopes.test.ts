import { describe, expect, it } from "vitest";
import { hasScope, isScope } from "./scopes";

describe("scopes", () => {
  it.each([
    [["mcp"], "mcp", true],
    [["mcp"], "admin", false],
    [[], null, true],
    [["skills:read"], "skills:write", false],
    [["admin", "skills:write"], "skills:write", true],
  ] as const)("hasScope(%j, %s) = %s", (granted, required, expected) => {
    expect(hasScope(granted, required)).toBe(expected);
  });

  it("recognises only the documented scopes", () => {
    expect(isScope("servers:write")).toBe(true);
    expect(isScope("servers:*")).toBe(false);
    expect(isScope("ADMIN")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import { normalizeEmail, slugFromEmail, slugProblem } from "./names";

describe("slugProblem", () => {
  it.each([
    ["acme", null],
    ["a1", null],
    ["acme-labs", null],
    ["a", "use"],
    ["Acme", "use"],
    ["-acme", "use"],
    ["acme-", "use"],
    ["ac--me", "use"],
    ["acme_labs", "use"],
    ["a".repeat(40), "use"],
    ["me", "reserved"],
    ["admin", "reserved"],
  ])("%s → %s", (slug, expected) => {
    const problem = slugProblem(slug);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("slugFromEmail", () => {
  it.each([
    ["Ada.Lovelace+loadout@example.com", "ada-lovelace"],
    ["x@example.com", "user-x"],
    ["me@example.com", "me-ws"],
    ["__@example.com", "user"],
    ["très.bien@example.com", "tr-s-bien"],
  ])("%s → %s", (email, slug) => {
    expect(slugFromEmail(email)).toBe(slug);
    expect(slugProblem(slugFromEmail(email))).toBeNull();
  });

  it("normalizes emails", () => {
    expect(normalizeEmail("  Ada@Example.COM ")).toBe("ada@example.com");
  });
});

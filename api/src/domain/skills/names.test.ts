import { describe, expect, it } from "vitest";
import { docNameFor, SKILL_NAME_PATTERN, skillNameProblem } from "./names";

describe("skillNameProblem", () => {
  it.each([
    ["pdf-tools", null],
    ["a", null],
    ["x1-2y", null],
    ["a".repeat(64), null],
    ["", "empty"],
    ["a".repeat(65), "at most 64"],
    ["PDF-tools", "lowercase"],
    ["pdf_tools", "lowercase"],
    ["pdf tools", "lowercase"],
    ["pdf.tools", "lowercase"],
    ["café", "lowercase"],
    ["-pdf", "start or end"],
    ["pdf-", "start or end"],
    ["pdf--tools", "two hyphens"],
  ])("%j → %j", (name, expected) => {
    const problem = skillNameProblem(name);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
    expect(SKILL_NAME_PATTERN.test(name) && name.length <= 64).toBe(expected === null);
  });
});

describe("docNameFor", () => {
  it.each([
    ["skill", "SKILL.md"],
    ["persona", "PERSONA.md"],
  ] as const)("%s → %s", (kind, doc) => {
    expect(docNameFor(kind)).toBe(doc);
  });
});

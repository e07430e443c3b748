import { describe, expect, it } from "vitest";
import { outcomeOfToolResult, refusalOf } from "./outcomes";

describe("refusalOf", () => {
  it.each<[string, string | null]>([
    ["Tool gh_list is not active for this session.", "not_active"],
    ['There is no skill or persona "x" in this session.', null],
    ["Tool gh_create is not allowed in plan mode.", "plan_refused"],
    ["Tool gh_create is not allowed in goal mode.", "plan_refused"],
    [
      'Tool gh_issues may only run action "list", action "get" in plan mode. Switch to agent mode to make changes.',
      "plan_refused",
    ],
    ["Tool gh_list is not approved yet: review it in the Loadout console.", "withheld"],
    [
      "Tool gh_list is its definition changed since it was approved: review the change in the Loadout console.",
      "withheld",
    ],
    ["upstream said: boom", null],
  ])("%s → %s", (text, expected) => {
    expect(refusalOf(text)).toBe(expected);
  });
});

describe("outcomeOfToolResult", () => {
  it("tells success, refusals and tool errors apart", () => {
    expect(outcomeOfToolResult({ content: [{ text: "fine" }] })).toBe("ok");
    expect(outcomeOfToolResult({ isError: false, content: [] })).toBe("ok");
    expect(outcomeOfToolResult({ isError: true, content: [{ text: "x is not active for this session." }] })).toBe(
      "not_active",
    );
    expect(outcomeOfToolResult({ isError: true, content: [{ text: "not allowed in plan mode" }] })).toBe(
      "plan_refused",
    );
    expect(outcomeOfToolResult({ isError: true, content: [{}, { text: "boom" }] })).toBe("tool_error");
  });
});

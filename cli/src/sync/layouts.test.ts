import { describe, expect, it } from "vitest";
import { LAYOUTS, targetPath } from "./layouts";

describe("client layouts", () => {
  it("puts a skill in its folder and a persona in one agents file", () => {
    expect(targetPath("skill", "code-review", "references/a.md")).toBe("skills/code-review/references/a.md");
    expect(targetPath("persona", "staff", "PERSONA.md")).toBe("agents/staff.md");
    expect(targetPath("persona", "staff", "notes.md")).toBeNull();
  });

  it("reads each client's user folder from the home, XDG and CODEX_HOME", () => {
    const roots = Object.fromEntries(LAYOUTS.map((l) => [l.client, l.userRoot({ HOME: "/h" })]));
    expect(roots).toEqual({
      "claude-code": "/h/.claude",
      codex: "/h/.codex",
      cursor: "/h/.cursor",
      opencode: "/h/.config/opencode",
    });
    const codex = LAYOUTS.find((l) => l.client === "codex");
    expect(codex?.userRoot({ HOME: "/h", CODEX_HOME: "/elsewhere" })).toBe("/elsewhere");
    expect(codex?.kinds).toEqual(["skill"]);
  });
});

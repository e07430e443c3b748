import { describe, expect, it } from "vitest";
import { estimateTokens, type InstructionItem, instructionsBlock, TOKEN_BUDGET } from "./instructions";

const item = (
  address: string,
  description = `Does ${address} things.`,
  kind: "skill" | "persona" = "skill",
): InstructionItem => ({
  address,
  kind,
  description,
});

describe("instructionsBlock", () => {
  it("is absent without items", () => {
    expect(instructionsBlock([])).toBeNull();
  });

  it("lists each item with its description, personas marked, in a stable order", () => {
    const block =
      instructionsBlock([
        item("zeta"),
        item("acme/alpha", "Team alpha."),
        item("reviewer", "A reviewer.", "persona"),
      ]) ?? "";
    expect(block).toContain('skills(action="get"');
    const lines = block.split("\n").filter((l) => l.startsWith("- "));
    expect(lines).toEqual([
      "- acme/alpha: Team alpha.",
      "- reviewer (persona): A reviewer.",
      "- zeta: Does zeta things.",
    ]);
  });

  it("leaves out the kinds a client reads from its own folders, and has no block when nothing is left", () => {
    const items = [item("zeta"), item("reviewer", "A reviewer.", "persona")];
    const personas = instructionsBlock(items, { leaveOut: new Set(["skill"]) }) ?? "";
    expect(personas.split("\n").filter((l) => l.startsWith("- "))).toEqual(["- reviewer (persona): A reviewer."]);
    expect(instructionsBlock(items, { leaveOut: new Set(["skill", "persona"]) })).toBeNull();
    expect(instructionsBlock(items, { leaveOut: new Set() })).toContain("- zeta");
  });

  it("cuts descriptions to 250 characters, counting code points", () => {
    const long = "é".repeat(400);
    const block = instructionsBlock([item("long", long)]) ?? "";
    const line = block.split("\n").find((l) => l.startsWith("- long")) ?? "";
    const description = line.slice("- long: ".length);
    expect([...description]).toHaveLength(250);
    expect(description.endsWith("…")).toBe(true);
  });

  it("stays within 1,500 estimated tokens, then names, then counts the rest", () => {
    const many = Array.from({ length: 400 }, (_, i) => item(`skill-${String(i).padStart(3, "0")}`, "x".repeat(240)));
    const block = instructionsBlock(many) ?? "";
    expect(estimateTokens(block)).toBeLessThanOrEqual(TOKEN_BUDGET);
    expect(block).toContain("Also available (by name): ");
    const counted = /…and (\d+) more: call skills\(action="list"\)/.exec(block);
    expect(counted).not.toBeNull();
    const described = block.split("\n").filter((l) => l.startsWith("- ")).length;
    const named = (block.split("Also available (by name): ")[1]?.split("\n")[0] ?? "").split(", ").length;
    expect(described + named + Number(counted?.[1])).toBe(400);
  });

  it("lists everything when it fits", () => {
    const block = instructionsBlock(Array.from({ length: 10 }, (_, i) => item(`s${i}`))) ?? "";
    expect(block).not.toContain("more:");
    expect(block.split("\n").filter((l) => l.startsWith("- "))).toHaveLength(10);
  });
});

describe("the session's mode in the instructions", () => {
  const items = [{ address: "code-review", kind: "skill" as const, description: "Review a diff." }];

  it("says nothing of the mode in agent mode", () => {
    expect(instructionsBlock(items, { mode: "agent" })).toBe(instructionsBlock(items));
    expect(instructionsBlock([], { mode: "agent" })).toBeNull();
  });

  it("opens with plan mode, what it allows and how to leave it, before the skills", () => {
    const block = instructionsBlock(items, { mode: "plan" }) ?? "";
    expect(block.startsWith("## Plan mode (Loadout)\nThis session is in plan mode")).toBe(true);
    expect(block).toContain("skill_edit is not offered");
    expect(block).toContain("marked it safe for plan mode");
    expect(block).toContain("connect in agent mode");
    expect(block.indexOf("## Your skills and personas")).toBeGreaterThan(block.indexOf("Plan mode"));
  });

  it("names goal mode as such, and is given even with no skills", () => {
    expect(instructionsBlock([], { mode: "goal" })).toMatch(/^## Goal mode \(Loadout\)\nThis session is in goal mode/);
  });
});

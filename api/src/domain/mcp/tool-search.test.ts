import { describe, expect, it } from "vitest";
import { estimatedTokens, indexTools, listingTokens, rankTools as rankIndexed } from "./tool-search";

const rankTools = <T extends { name: string }>(tools: T[], query: string, limit: number) =>
  rankIndexed(indexTools(tools), query, limit);

const tools = [
  { name: "tracker_issues", title: "Issues", description: "Lists, reads, creates and closes issues." },
  { name: "tracker_echo", title: "Echo", description: "Returns its text unchanged." },
  { name: "notes_search", title: "Search notes", description: "Finds notes by words, issues included." },
  { name: "notes_read", title: "Read a note", description: "Reads one note." },
];

describe("rankTools", () => {
  it("ranks a word in the name above one in the title, above one in the description", () => {
    expect(rankTools(tools, "issues", 10).map((t) => t.name)).toEqual(["tracker_issues", "notes_search"]);
    expect(rankTools(tools, "search notes", 10).map((t) => t.name)).toEqual(["notes_search", "notes_read"]);
  });

  it("counts a prefix of a word at half, ignores case and punctuation, and keeps listing order on ties", () => {
    expect(rankTools(tools, "ECHO!", 10).map((t) => t.name)).toEqual(["tracker_echo"]);
    expect(rankTools(tools, "rea", 10).map((t) => t.name)).toEqual(["notes_read", "tracker_issues"]);
    // "note" is a word of one title and a prefix elsewhere.
    expect(rankTools(tools, "note", 10).map((t) => t.name)).toEqual(["notes_read", "notes_search"]);
  });

  it("answers every tool in listing order for an empty query, and at most the limit", () => {
    expect(rankTools(tools, "  ", 3).map((t) => t.name)).toEqual(["tracker_issues", "tracker_echo", "notes_search"]);
    expect(rankTools(tools, "zebra", 10)).toEqual([]);
  });
});

describe("estimatedTokens", () => {
  it("is about a token per four characters of the definition's JSON", () => {
    expect(estimatedTokens({ name: "abcd" })).toBe(Math.ceil('{"name":"abcd"}'.length / 4));
    expect(estimatedTokens(tools)).toBeGreaterThan(estimatedTokens(tools[0]));
  });
});

describe("listingTokens", () => {
  it("is the sum of each definition's estimate, rounded per definition as find_tools reports them", () => {
    // 15 characters each: 4 tokens apiece, where the pair's JSON (33 characters) measured at once is 9.
    const one = { name: "abcd" };
    expect(estimatedTokens(one)).toBe(4);
    expect(estimatedTokens([one, one])).toBe(9);
    expect(listingTokens([one, one])).toBe(8);
    expect(listingTokens(tools)).toBe(tools.reduce((sum, t) => sum + estimatedTokens(t), 0));
    expect(listingTokens([])).toBe(0);
  });
});

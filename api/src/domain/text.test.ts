import { describe, expect, it } from "vitest";
import { textProblem } from "./text";

describe("textProblem", () => {
  it("refuses NUL, other C0 and C1 controls and DEL in a line, naming the character and where", () => {
    expect(textProblem("ab\u0000c")).toBe(
      "holds a control character (U+0000) at character 3, which is not allowed; remove it",
    );
    for (const c of ["\u0001", "\n", "\t", "\u007f", "\u0085", "\u009b"]) expect(textProblem(`x${c}`)).not.toBeNull();
    expect(textProblem("Ada Lovelace — 数学 😀")).toBeNull();
  });

  it("lets Markdown keep tabs and line breaks, nothing else", () => {
    expect(textProblem("# T\n\n\tx\r\n", "text")).toBeNull();
    expect(textProblem("\u001b[31m", "text")).toMatch(/U\+001B\) at character 1.*tabs and line breaks are/);
  });

  it("lets a file's text hold anything but NUL", () => {
    expect(textProblem("\u001b[31m\f", "file")).toBeNull();
    expect(textProblem("a\u0000", "file")).toMatch(/NUL character .* contentBase64/);
  });

  it("refuses a lone surrogate everywhere, and counts characters, not UTF-16 units", () => {
    expect(textProblem("😀\ud800")).toMatch(/lone UTF-16 surrogate\) at character 2/);
    expect(textProblem("\udc00x", "file")).toMatch(/surrogate/);
  });
});

import { describe, expect, it } from "vitest";
import { isDocPath, validateFilePaths } from "./paths";

describe("validateFilePaths, one path at a time", () => {
  it.each([
    ["SKILL.md"],
    ["references/guide.md"],
    ["scripts/run.py"],
    ["assets/logo.png"],
    [".github/notes.md"],
    ["a/b/c/d/e.txt"],
    ["notes..md"],
    ["...md"],
    ["日本語/ファイル.md"],
    ["emoji-😀.md"],
    ["a".repeat(255)],
    [`${"é".repeat(127)}x`],
    [Array.from({ length: 4 }, () => "a".repeat(255)).join("/")],
    ["with space/file name.md"],
  ])("accepts %j", (path) => {
    expect(validateFilePaths([path])).toEqual([]);
  });

  it.each([
    ["", "empty"],
    ["/etc/passwd", "absolute"],
    ["/x", "absolute"],
    ["C:/x", "absolute"],
    ["C:\\x", "absolute"],
    ["c:x", "absolute"],
    ["\\\\server\\share\\x", "absolute"],
    ["\\x", "absolute"],
    ["a\\b.md", "backslash"],
    ["../x", 'contains ".."'],
    ["a/../../x", 'contains ".."'],
    ["..", 'contains ".."'],
    ["./a", 'contains "."'],
    ["a/./b", 'contains "."'],
    [".", 'contains "."'],
    ["a//b", "empty folder name"],
    ["a/", "empty folder name"],
    ["a\u0000b", "U+0000"],
    ["a\nb", "U+000A"],
    ["tab\there", "U+0009"],
    ["del\u007f", "U+007F"],
    ["c1\u0085", "U+0085"],
    ["line\u2028sep", "U+2028"],
    ["para\u2029sep", "U+2029"],
    ["evil\u202etxt.exe", "U+202E"],
    ["a".repeat(256), "256 bytes long; a file or folder name may be at most 255"],
    ["é".repeat(128), "256 bytes long"],
    [Array.from({ length: 5 }, () => "a".repeat(205)).join("/"), "1029 bytes long; use at most 1024"],
  ])("refuses %j (%s)", (path, expected) => {
    const problems = validateFilePaths([path]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.path).toBe(path);
    expect(problems[0]?.message).toContain(expected);
  });

  it("says what to do, not only what is wrong", () => {
    const messages = validateFilePaths(["/abs", "a\\b", "../x", "a//b", "a\u0001"]).map((p) => p.message);
    expect(messages).toEqual([
      expect.stringContaining("use a path relative to the skill's folder"),
      expect.stringContaining("use / to separate folders"),
      expect.stringContaining("without . or .. parts"),
      expect.stringContaining("remove the extra /"),
      expect.stringContaining("rename the file using visible characters"),
    ]);
  });
});

describe("validateFilePaths, across paths", () => {
  it("reports the second of two paths that differ only in case, naming the first", () => {
    expect(validateFilePaths(["README.md", "docs/a.md", "readme.md"])).toEqual([
      { path: "readme.md", message: expect.stringMatching(/^differs from README\.md only in letter case/) },
    ]);
  });

  it("treats the composed and decomposed spellings of é as one name", () => {
    const problems = validateFilePaths(["caf\u00e9.md", "cafe\u0301.md"]);
    expect(problems.map((p) => p.path)).toEqual(["cafe\u0301.md"]);
  });

  it("reports a path listed twice", () => {
    expect(validateFilePaths(["a.md", "a.md"])).toEqual([{ path: "a.md", message: expect.stringContaining("twice") }]);
  });

  it("compares case across folders too", () => {
    expect(validateFilePaths(["Scripts/run.py", "scripts/run.py", "scripts/other.py"]).map((p) => p.path)).toEqual([
      "scripts/run.py",
    ]);
  });

  it("reports every bad path in order", () => {
    expect(validateFilePaths(["ok.md", "/a", "b/../c", "ok2.md"]).map((p) => p.path)).toEqual(["/a", "b/../c"]);
  });
});

describe("isDocPath", () => {
  it.each([
    ["SKILL.md", undefined, true],
    ["PERSONA.md", undefined, true],
    ["SKILL.md", "skill", true],
    ["PERSONA.md", "skill", false],
    ["PERSONA.md", "persona", true],
    ["skill.md", undefined, false],
    ["sub/SKILL.md", undefined, false],
    ["./SKILL.md", undefined, false],
  ] as const)("%s (%s) → %s", (path, kind, expected) => {
    expect(isDocPath(path, kind)).toBe(expected);
  });
});

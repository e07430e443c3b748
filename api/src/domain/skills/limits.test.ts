import { describe, expect, it } from "vitest";
import {
  checkSkillSizes,
  FILE_MAX_BYTES,
  formatSize,
  SKILL_DOC_MAX_BYTES,
  SKILL_MAX_BYTES,
  SKILL_MAX_FILES,
  sizeOver,
  WORKSPACE_QUOTA_BYTES,
} from "./limits";

const KiB = 1024;
const MiB = 1024 * KiB;

describe("limits", () => {
  it("are the documented values", () => {
    expect([SKILL_DOC_MAX_BYTES, SKILL_MAX_FILES, SKILL_MAX_BYTES, FILE_MAX_BYTES, WORKSPACE_QUOTA_BYTES]).toEqual([
      131_072, 512, 16_777_216, 16_777_216, 1_073_741_824,
    ]);
  });
});

describe("formatSize", () => {
  it.each([
    [0, "0 bytes"],
    [1023, "1023 bytes"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [128 * KiB, "128 KiB"],
    [128 * KiB + 1, "128.1 KiB"],
    [16 * MiB, "16 MiB"],
    [16 * MiB + 1, "16.1 MiB"],
    [1024 * MiB, "1024 MiB"],
  ])("%i → %s", (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});

describe("checkSkillSizes", () => {
  const doc = (size: number) => ({ path: "SKILL.md", size });

  it.each([
    ["a small skill", [doc(2 * KiB), { path: "scripts/run.py", size: 10 * KiB }]],
    ["the document at exactly 128 KiB", [doc(SKILL_DOC_MAX_BYTES)]],
    ["a file at exactly 16 MiB minus the document", [doc(1), { path: "a.bin", size: SKILL_MAX_BYTES - 1 }]],
    ["exactly 512 files", [doc(1), ...Array.from({ length: 511 }, (_, i) => ({ path: `f${i}`, size: 1 }))]],
    ["no files at all (the document check is elsewhere)", []],
    ["a nested SKILL.md is an ordinary file", [doc(1), { path: "sub/SKILL.md", size: 200 * KiB }]],
  ])("accepts %s", (_name, files) => {
    expect(checkSkillSizes(files, "SKILL.md")).toEqual([]);
  });

  it('gives exact bytes when a size is only a little over (issue 22: not "128.1 KiB; at most 128 KiB")', () => {
    expect(checkSkillSizes([doc(128 * KiB + 1)], "SKILL.md")[0]?.message).toMatch(
      /^is 131,073 bytes \(1 byte over\); it may be at most 131,072 bytes \(128 KiB\)\./,
    );
    expect(sizeOver(20 * MiB, 16 * MiB)).toEqual({ size: "20 MiB", limit: "16 MiB" });
  });

  it("refuses a document over 128 KiB, naming the sizes and what to do", () => {
    expect(checkSkillSizes([doc(130 * KiB + 512)], "SKILL.md")).toEqual([
      {
        path: "SKILL.md",
        code: "too_large",
        message: expect.stringMatching(/^is 130\.5 KiB; it may be at most 128 KiB\. Move reference/),
      },
    ]);
  });

  it("checks PERSONA.md for personas and leaves SKILL.md alone there", () => {
    const files = [
      { path: "PERSONA.md", size: SKILL_DOC_MAX_BYTES + 1 },
      { path: "SKILL.md", size: SKILL_DOC_MAX_BYTES + 1 },
    ];
    const problems = checkSkillSizes(files, "PERSONA.md");
    expect(problems.map((p) => p.path)).toEqual(["PERSONA.md"]);
    expect(problems[0]?.message).toContain("link to them from PERSONA.md");
  });

  it("refuses one file over 16 MiB, and the total it pushes over the limit", () => {
    const problems = checkSkillSizes([doc(KiB), { path: "assets/video.mp4", size: 17 * MiB }], "SKILL.md");
    expect(problems).toEqual([
      {
        path: "assets/video.mp4",
        code: "too_large",
        message: expect.stringContaining("17 MiB; one file may be at most 16 MiB"),
      },
      { path: "", code: "too_large", message: expect.stringContaining("add up to 17.1 MiB") },
    ]);
  });

  it("refuses a total over 16 MiB even when each file is within limits", () => {
    const files = [doc(KiB), { path: "a.bin", size: 8 * MiB }, { path: "b.bin", size: 8 * MiB }];
    expect(checkSkillSizes(files, "SKILL.md")).toEqual([
      {
        path: "",
        code: "too_large",
        message: expect.stringMatching(
          /16,778,240 bytes \(1,024 bytes over\).*at most 16,777,216 bytes \(16 MiB\)\. Remove/,
        ),
      },
    ]);
  });

  it("refuses more than 512 files", () => {
    const files = [doc(1), ...Array.from({ length: 512 }, (_, i) => ({ path: `f${i}`, size: 1 }))];
    expect(checkSkillSizes(files, "SKILL.md")).toEqual([
      { path: "", code: "too_many_files", message: expect.stringContaining("513 files; it may have at most 512") },
    ]);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("throws on a size that is not a byte count (%s)", (size) => {
    expect(() => checkSkillSizes([{ path: "x", size }], "SKILL.md")).toThrow(RangeError);
  });
});

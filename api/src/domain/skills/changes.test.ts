import { describe, expect, it } from "vitest";
import { fileChange, PATCH_LIMIT } from "./changes";

const bytes = (text: string) => new TextEncoder().encode(text);

describe("fileChange", () => {
  it("gives a unified diff of a changed text file, without the file headers", () => {
    const change = fileChange("SKILL.md", bytes("a\nb\nc\n"), bytes("a\nB\nc\n"));
    expect(change.status).toBe("changed");
    expect(change.patch).toBe("@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
    expect(change.truncated).toBeUndefined();
  });

  it("marks added and removed files, and shows their text as added or removed lines", () => {
    expect(fileChange("new.md", null, bytes("x\n"))).toMatchObject({ status: "added", patch: "@@ -0,0 +1,1 @@\n+x\n" });
    expect(fileChange("old.md", bytes("y\n"), null)).toMatchObject({
      status: "removed",
      patch: "@@ -1,1 +0,0 @@\n-y\n",
    });
  });

  it("shows no diff of bytes that are not UTF-8 text", () => {
    const change = fileChange("logo.png", null, new Uint8Array([0x89, 0x50, 0xff, 0xfe]));
    expect(change).toEqual({ path: "logo.png", status: "added", note: "not UTF-8 text: no diff shown" });
  });

  it("cuts a long patch and says so, and does not diff an edit too large to diff cheaply", () => {
    const long = Array.from({ length: 3000 }, (_, i) => `line ${i} ${"x".repeat(20)}`).join("\n");
    const cut = fileChange("big.md", null, bytes(long));
    expect(cut.truncated).toBe(true);
    expect(cut.patch?.length).toBe(PATCH_LIMIT);
    const rewrite = fileChange("big.md", bytes(long), bytes(long.replace(/x/g, "y")));
    expect(rewrite).toMatchObject({ status: "changed", truncated: true, note: expect.stringMatching(/too many/) });
  });
});

import { BlobWriter, TextReader, Uint8ArrayReader, ZipWriter } from "@zip.js/zip.js";
import { describe, expect, it } from "vitest";
import { crc32, readSkillArchive } from "./archive";

const LIMITS = { maxFiles: 512, maxTotalBytes: 16 * 1024 * 1024, maxFileBytes: 16 * 1024 * 1024 };
const DOC = "---\nname: demo\ndescription: A demo skill\n---\n\nDo the thing.\n";

type Entry = { name: string; text?: string; bytes?: Uint8Array; options?: Record<string, unknown> };

async function zip(entries: Entry[], options: Record<string, unknown> = {}): Promise<Uint8Array> {
  const writer = new ZipWriter(new BlobWriter("application/zip"), options);
  for (const e of entries) {
    const reader = e.bytes ? new Uint8ArrayReader(e.bytes) : new TextReader(e.text ?? "");
    await writer.add(e.name, reader, e.options);
  }
  return new Uint8Array(await (await writer.close()).arrayBuffer());
}

describe("crc32", () => {
  it.each([
    ["", 0],
    ["123456789", 0xcbf43926],
    ["The quick brown fox jumps over the lazy dog", 0x414fa339],
  ])("of %j is %i", (text, expected) => {
    expect(crc32(new TextEncoder().encode(text))).toBe(expected);
  });
});

describe("readSkillArchive", () => {
  it("reads a skill folder at the root, bytes intact", async () => {
    const png = Uint8Array.from({ length: 300 }, (_, i) => (i * 37) % 256);
    const result = await readSkillArchive(
      await zip([
        { name: "SKILL.md", text: DOC },
        { name: "references/guide.md", text: "# Guide\r\n" },
        { name: "assets/logo.png", bytes: png },
      ]),
      "SKILL.md",
      LIMITS,
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect([...result.files.keys()].sort()).toEqual(["SKILL.md", "assets/logo.png", "references/guide.md"]);
    expect(new TextDecoder().decode(result.files.get("references/guide.md"))).toBe("# Guide\r\n");
    expect(result.files.get("assets/logo.png")).toEqual(png);
  });

  it("strips one top-level folder and Finder's junk", async () => {
    const result = await readSkillArchive(
      await zip([
        { name: "demo/SKILL.md", text: DOC },
        { name: "demo/scripts/run.sh", text: "#!/bin/sh\necho hi\n" },
        { name: "__MACOSX/demo/._SKILL.md", text: "junk" },
        { name: "demo/.DS_Store", text: "junk" },
      ]),
      "SKILL.md",
      LIMITS,
    );
    expect(result.ok && [...result.files.keys()].sort()).toEqual(["SKILL.md", "scripts/run.sh"]);
  });

  it.each([
    [
      "a symlink",
      [
        { name: "SKILL.md", text: DOC },
        { name: "link", text: "/etc/passwd", options: { unixMode: 0o120777 } },
      ],
      "symbolic link",
    ],
    [
      "a nested archive",
      [
        { name: "SKILL.md", text: DOC },
        { name: "vendor/tools.zip", text: "PK" },
      ],
      "archive inside the archive",
    ],
    ["no SKILL.md", [{ name: "README.md", text: "hi" }], "has no SKILL.md"],
    [
      "two top-level folders",
      [
        { name: "a/SKILL.md", text: DOC },
        { name: "b/x.md", text: "x" },
      ],
      "has no SKILL.md",
    ],
  ] as const)("refuses %s", async (_, entries, message) => {
    const result = await readSkillArchive(await zip([...entries]), "SKILL.md", LIMITS);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.status).toBe("invalid");
    expect(result.problems.map((p) => p.message).join(" ")).toContain(message);
  });

  it("refuses encrypted entries", async () => {
    const bytes = await zip([{ name: "SKILL.md", text: DOC }], { password: "hunter22", zipCrypto: true });
    const result = await readSkillArchive(bytes, "SKILL.md", LIMITS);
    expect(result.ok || result.problems[0]?.message).toContain("encrypted");
  });

  it("refuses a zip bomb from its declared sizes, before inflating", async () => {
    const zeros = new Uint8Array(20 * 1024 * 1024);
    const bytes = await zip([
      { name: "SKILL.md", text: DOC },
      { name: "zeros.bin", bytes: zeros },
    ]);
    expect(bytes.byteLength).toBeLessThan(200_000);
    const result = await readSkillArchive(bytes, "SKILL.md", LIMITS);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.status).toBe("too_large");
      expect(result.problems[0]?.message).toMatch(/unpacks to 20\.0 MiB/);
    }
  });

  it("stops inflating at the declared size when the headers lie", async () => {
    const big = new TextEncoder().encode("A".repeat(100_000));
    const bytes = await zip([
      { name: "SKILL.md", text: DOC },
      { name: "big.txt", bytes: big },
    ]);
    // Rewrite big.txt's uncompressed size (local header and central directory) to 10 bytes.
    const view = new DataView(bytes.buffer);
    let patched = 0;
    for (let i = 0; i < bytes.length - 4; i++) {
      const sig = view.getUint32(i, true);
      if (sig === 0x04034b50 && view.getUint32(i + 22, true) === 100_000) {
        view.setUint32(i + 22, 10, true);
        patched++;
      }
      if (sig === 0x02014b50 && view.getUint32(i + 24, true) === 100_000) {
        view.setUint32(i + 24, 10, true);
        patched++;
      }
    }
    expect(patched).toBeGreaterThanOrEqual(1);
    const result = await readSkillArchive(bytes, "SKILL.md", LIMITS);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.problems[0]?.message).toMatch(/could not be unpacked/);
  });

  it("refuses too many files and bytes that are not a zip", async () => {
    const many = await zip([
      { name: "SKILL.md", text: DOC },
      ...Array.from({ length: 5 }, (_, i) => ({ name: `f${i}.md`, text: "x" })),
    ]);
    const result = await readSkillArchive(many, "SKILL.md", { ...LIMITS, maxFiles: 5 });
    expect(!result.ok && result.status).toBe("too_large");
    const garbage = await readSkillArchive(new TextEncoder().encode("not a zip at all"), "SKILL.md", LIMITS);
    expect(!garbage.ok && garbage.problems[0]?.message).toMatch(/not a readable zip archive/);
  });
});

/**
 * A stored (uncompressed) zip written byte by byte, for what zip tools will not write: names
 * with control characters or in CP437, the same entry twice, `..` and absolute names.
 */
function rawZip(entries: { name: string | Uint8Array; text: string; utf8?: boolean }[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const central: Uint8Array[] = [];
  let offset = 0;
  for (const e of entries) {
    const name = typeof e.name === "string" ? new TextEncoder().encode(e.name) : e.name;
    const data = new TextEncoder().encode(e.text);
    const flag = e.utf8 === false ? 0 : 0x0800;
    const local = new DataView(new ArrayBuffer(30));
    local.setUint32(0, 0x04034b50, true);
    local.setUint16(4, 20, true);
    local.setUint16(6, flag, true);
    local.setUint32(14, crc32(data), true);
    local.setUint32(18, data.byteLength, true);
    local.setUint32(22, data.byteLength, true);
    local.setUint16(26, name.byteLength, true);
    const header = new DataView(new ArrayBuffer(46));
    header.setUint32(0, 0x02014b50, true);
    header.setUint16(4, 0x031e, true);
    header.setUint16(6, 20, true);
    header.setUint16(8, flag, true);
    header.setUint32(16, crc32(data), true);
    header.setUint32(20, data.byteLength, true);
    header.setUint32(24, data.byteLength, true);
    header.setUint16(28, name.byteLength, true);
    header.setUint32(38, (0o100644 << 16) >>> 0, true);
    header.setUint32(42, offset, true);
    chunks.push(new Uint8Array(local.buffer), name, data);
    central.push(new Uint8Array(header.buffer), name);
    offset += 30 + name.byteLength + data.byteLength;
  }
  const size = central.reduce((n, c) => n + c.byteLength, 0);
  const end = new DataView(new ArrayBuffer(22));
  end.setUint32(0, 0x06054b50, true);
  end.setUint16(8, entries.length, true);
  end.setUint16(10, entries.length, true);
  end.setUint32(12, size, true);
  end.setUint32(16, offset, true);
  const all = [...chunks, ...central, new Uint8Array(end.buffer)];
  const out = new Uint8Array(all.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of all) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

describe("readSkillArchive applies the JSON route's path rules to entry names (issue 21, item 4)", () => {
  const refused = async (entries: Parameters<typeof rawZip>[0]) => {
    const result = await readSkillArchive(rawZip(entries), "SKILL.md", LIMITS);
    expect(result.ok).toBe(false);
    return result.ok ? [] : result.problems;
  };

  it("refuses a control character or a NUL in a name, naming the entry as the JSON route would", async () => {
    expect(
      await refused([
        { name: "SKILL.md", text: DOC },
        { name: "a\u0001b.md", text: "x" },
      ]),
    ).toEqual([{ path: "a\u0001b.md", message: expect.stringContaining("the control character U+0001") }]);
    expect(
      await refused([
        { name: "SKILL.md", text: DOC },
        { name: "nul\u0000.md", text: "x" },
      ]),
    ).toEqual([{ path: "nul\u0000.md", message: expect.stringContaining("the control character U+0000") }]);
  });

  it("refuses the same entry twice instead of keeping the last", async () => {
    expect(
      await refused([
        { name: "SKILL.md", text: DOC },
        { name: "notes.md", text: "first" },
        { name: "notes.md", text: "second" },
      ]),
    ).toEqual([{ path: "notes.md", message: expect.stringContaining("listed twice") }]);
  });

  it("refuses .., absolute and drive-letter names with its own messages, not the zip library's", async () => {
    const problems = await refused([
      { name: "SKILL.md", text: DOC },
      { name: "../escape.md", text: "x" },
      { name: "/etc/passwd", text: "x" },
      { name: "C:/boot.ini", text: "x" },
    ]);
    expect(problems.map((p) => p.path)).toEqual(["../escape.md", "/etc/passwd", "C:/boot.ini"]);
    expect(problems.map((p) => p.message)).toEqual([
      expect.stringContaining("without . or .. parts"),
      expect.stringContaining("the path is absolute"),
      expect.stringContaining("the path is absolute"),
    ]);
    expect(JSON.stringify(problems)).not.toMatch(/Unsafe filename|not a readable zip/);
  });

  it("refuses a name that is not UTF-8 rather than reading it as CP437", async () => {
    const problems = await refused([
      { name: "SKILL.md", text: DOC },
      { name: Uint8Array.of(0x6e, 0x81, 0x2e, 0x6d, 0x64), text: "x", utf8: false },
    ]);
    expect(problems).toEqual([{ path: expect.any(String), message: expect.stringContaining("not UTF-8") }]);
  });

  it("tells the folder the skill sat in, so its name can be checked against the frontmatter", async () => {
    const result = await readSkillArchive(rawZip([{ name: "demo/SKILL.md", text: DOC }]), "SKILL.md", LIMITS);
    expect(result.ok && result.folder).toBe("demo");
  });
});

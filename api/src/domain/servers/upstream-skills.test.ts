import { describe, expect, it } from "vitest";
import { digestOf } from "../skills/digest";
import { itemHash, itemKey, kindListedBy, offersKind } from "./items";
import {
  bytesOf,
  declaresSkills,
  fileMismatch,
  isUpstreamSkillAddress,
  servedContent,
  skillPathOf,
  upstreamSkillAddress,
  upstreamSkillOrigin,
  upstreamSkillProblem,
} from "./upstream-skills";

const bytes = (text: string) => new TextEncoder().encode(text);
const DOC = "---\nname: pdf\ndescription: Reads PDFs.\n---\n# PDF\n";

function entry(overrides: Record<string, unknown> = {}) {
  return {
    uri: "skill://pdf/SKILL.md",
    frontmatter: { name: "pdf", description: "Reads PDFs." },
    resources: [
      { uri: "skill://pdf/SKILL.md", digest: digestOf(bytes(DOC)), size: bytes(DOC).byteLength },
      { uri: "skill://pdf/references/a.md", digest: digestOf(bytes("a")), size: 1 },
    ],
    ...overrides,
  };
}

describe("declaresSkills and offersKind", () => {
  it("asks for skills only where the extension is declared", () => {
    expect(declaresSkills({ extensions: { "io.modelcontextprotocol/skills": {} } })).toBe(true);
    expect(declaresSkills({ extensions: { "io.modelcontextprotocol/ui": {} } })).toBe(false);
    expect(declaresSkills({ resources: {} })).toBe(false);
    expect(offersKind("skill", { extensions: { "io.modelcontextprotocol/skills": { directoryRead: true } } })).toBe(
      true,
    );
    expect(offersKind("prompt", { prompts: {} })).toBe(true);
    expect(offersKind("skill", { prompts: {}, extensions: {} })).toBe(false);
    expect(kindListedBy("skills/list")).toBe("skill");
  });
});

describe("upstreamSkillProblem", () => {
  it("serves a valid entry with a complete manifest", () => {
    expect(upstreamSkillProblem(entry())).toBeNull();
    expect(upstreamSkillProblem(entry({ uri: "skill://acme/pdf/SKILL.md", resources: [] }))).toMatch(/SKILL\.md/);
  });

  it.each([
    ["a generated skill", { resources: "dynamic" }, /dynamic/],
    ["no manifest", { resources: undefined }, /manifest/],
    ["another scheme", { uri: "https://x/pdf/SKILL.md" }, /skill:\/\//],
    ["a name that is not the last segment", { frontmatter: { name: "other", description: "d" } }, /last segment/],
    ["an invalid name", { frontmatter: { name: "Bad_Name", description: "d" } }, /name/],
    ["no description", { frontmatter: { name: "pdf" } }, /description/],
  ])("refuses %s", (_, overrides, reason) => {
    expect(upstreamSkillProblem(entry(overrides))).toMatch(reason);
  });

  it("refuses a manifest without SKILL.md, with a file twice, outside the skill or without a digest", () => {
    const [doc, other] = entry().resources as { uri: string; digest: string; size: number }[];
    expect(upstreamSkillProblem(entry({ resources: [other] }))).toMatch(/SKILL\.md/);
    expect(upstreamSkillProblem(entry({ resources: [doc, other, other] }))).toMatch(/twice/);
    expect(upstreamSkillProblem(entry({ resources: [doc, { ...other, uri: "skill://other/a.md" }] }))).toMatch(
      /outside/,
    );
    expect(upstreamSkillProblem(entry({ resources: [doc, { ...other, digest: "md5:x" }] }))).toMatch(/digest/);
    expect(upstreamSkillProblem(entry({ resources: [doc, { ...other, size: 1.5 }] }))).toMatch(/size/);
  });

  it("refuses more than the host limits ask a host to accept (512 files, 16 MiB)", () => {
    const doc = (entry().resources as object[])[0];
    const many = Array.from({ length: 512 }, (_, i) => ({
      uri: `skill://pdf/f${i}`,
      digest: digestOf(bytes("")),
      size: 0,
    }));
    expect(upstreamSkillProblem(entry({ resources: [doc, ...many] }))).toMatch(/512/);
    const big = { uri: "skill://pdf/big.bin", digest: digestOf(bytes("")), size: 16 * 1024 * 1024 };
    expect(upstreamSkillProblem(entry({ resources: [doc, big] }))).toMatch(/bytes/);
  });
});

describe("the pin of a skill", () => {
  it("is keyed by its SKILL.md URI", () => {
    expect(itemKey("skill", entry())).toBe("skill://pdf/SKILL.md");
  });

  it("covers the frontmatter and every file's digest and size, not the order files are listed in", () => {
    const pin = itemHash("skill", entry());
    const resources = entry().resources as { uri: string; digest: string; size: number }[];
    expect(itemHash("skill", entry({ resources: [...resources].reverse() }))).toBe(pin);
    expect(itemHash("skill", entry({ frontmatter: { name: "pdf", description: "Other." } }))).not.toBe(pin);
    expect(
      itemHash("skill", entry({ frontmatter: { name: "pdf", description: "Reads PDFs.", "allowed-tools": "Bash" } })),
    ).not.toBe(pin);
    const [doc, other] = resources as [(typeof resources)[0], (typeof resources)[0]];
    expect(itemHash("skill", entry({ resources: [doc, { ...other, digest: digestOf(bytes("b")) }] }))).not.toBe(pin);
    expect(itemHash("skill", entry({ resources: [doc, { ...other, size: 2 }] }))).not.toBe(pin);
    expect(itemHash("skill", entry({ resources: [doc] }))).not.toBe(pin);
  });
});

describe("names beside the user's own", () => {
  it("tags the origin and the tool's name with the server's prefix", () => {
    expect(upstreamSkillOrigin("docs")).toBe("server:docs");
    expect(upstreamSkillAddress("docs", "skill://pdf/SKILL.md")).toBe("server:docs/pdf");
    expect(upstreamSkillAddress("acme_docs", "skill://acme/billing/refunds/SKILL.md")).toBe(
      "server:acme_docs/acme/billing/refunds",
    );
    expect(skillPathOf("skill://a/b/SKILL.md")).toBe("a/b");
  });

  it("tells an upstream skill's name from a personal name and a team's team/name", () => {
    expect(isUpstreamSkillAddress("server:docs/pdf")).toBe(true);
    expect(isUpstreamSkillAddress("pdf")).toBe(false);
    expect(isUpstreamSkillAddress("server/pdf")).toBe(false);
    expect(isUpstreamSkillAddress("acme/pdf")).toBe(false);
  });
});

describe("fileMismatch", () => {
  const file = { uri: "skill://pdf/SKILL.md", digest: digestOf(bytes(DOC)), size: bytes(DOC).byteLength };
  it("passes the exact bytes, and refuses other bytes or another size with the reason", () => {
    expect(fileMismatch(file, bytes(DOC), digestOf)).toBeNull();
    expect(fileMismatch(file, bytes(DOC.replace("PDF", "FDP")), digestOf)).toMatch(/hash to sha256:/);
    expect(fileMismatch(file, bytes(`${DOC}!`), digestOf)).toMatch(/bytes where the approved manifest says/);
  });
});

describe("a read's served bytes", () => {
  it("are its text as UTF-8, or its blob decoded, from the entry of the URI or the only one", () => {
    const read = {
      contents: [
        { uri: "skill://a/SKILL.md", text: "é" },
        { uri: "skill://a/x.bin", blob: "AAH/" },
      ],
    };
    expect(bytesOf(servedContent(read, "skill://a/SKILL.md") ?? {})).toEqual(new Uint8Array([0xc3, 0xa9]));
    expect(bytesOf(servedContent(read, "skill://a/x.bin") ?? {})).toEqual(new Uint8Array([0, 1, 255]));
    expect(servedContent(read, "skill://a/other.md")).toBeUndefined();
    expect(servedContent({ contents: [{ uri: "elsewhere", text: "x" }] }, "skill://a/SKILL.md")).toMatchObject({
      text: "x",
    });
    expect(bytesOf({ blob: "%%%" })).toBeNull();
    expect(bytesOf({})).toBeNull();
  });
});

import { describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import {
  formatDocProblem,
  parseSkillDocument,
  renderSkillDocument,
  replaceBody,
  replaceDescription,
  type SkillDocument,
} from "./document";

const skill = { kind: "skill" } as const;

function parsed(text: string, expect: { kind: "skill" | "persona"; name?: string } = skill): SkillDocument {
  const result = parseSkillDocument(text, expect);
  if (!result.ok) throw new Error(`expected a valid document: ${JSON.stringify(result.problems)}`);
  return result.doc;
}

describe("parseSkillDocument accepts", () => {
  it.each([
    ["minimal", "---\nname: pdf\ndescription: Read PDFs.\n---\nBody\n", "pdf", "Read PDFs.", "Body\n"],
    [
      "CRLF line endings",
      "---\r\nname: pdf\r\ndescription: Read PDFs.\r\n---\r\n# T\r\n",
      "pdf",
      "Read PDFs.",
      "# T\r\n",
    ],
    ["a UTF-8 BOM", "\uFEFF---\nname: pdf\ndescription: d\n---\nB", "pdf", "d", "B"],
    ["é", "---\nname: cafe\ndescription: Café crème\n---\n", "cafe", "Café crème", ""],
    ["日本語", "---\nname: jp\ndescription: 日本語の説明\n---\n本文", "jp", "日本語の説明", "本文"],
    ["emoji", '---\nname: e\ndescription: "Ship it 🚀"\n---\n', "e", "Ship it 🚀", ""],
    ["a folded block description", "---\nname: f\ndescription: >\n  one\n  two\n---\n", "f", "one two\n", ""],
    ["a literal block description", "---\nname: f\ndescription: |-\n  one\n  two\n---\n", "f", "one\ntwo", ""],
    ["single-quoted", "---\nname: q\ndescription: 'It''s: fine'\n---\n", "q", "It's: fine", ""],
    ["comments and blank lines", "---\n# c\nname: c # n\n\ndescription: d\n---\n", "c", "d", ""],
    ["no body after the fence", "---\nname: n\ndescription: d\n---", "n", "d", ""],
    ["trailing spaces after fences", "---  \nname: n\ndescription: d\n--- \nB", "n", "d", "B"],
    ["a flow mapping", "---\n{name: fm, description: d}\n---\n", "fm", "d", ""],
    ["--- inside the body", "---\nname: n\ndescription: d\n---\nA\n---\nB\n", "n", "d", "A\n---\nB\n"],
    ["exactly 1024 characters", `---\nname: n\ndescription: ${"é".repeat(1024)}\n---\n`, "n", "é".repeat(1024), ""],
    [
      "1024 emoji (code points, not UTF-16 units)",
      `---\nname: n\ndescription: ${"😀".repeat(1024)}\n---\n`,
      "n",
      "😀".repeat(1024),
      "",
    ],
  ])("%s", (_name, text, name, description, body) => {
    const doc = parsed(text);
    expect(doc).toMatchObject({ name, description, body });
    expect(doc.frontmatter.name).toBe(name);
  });

  it("reports line endings, the BOM and the frontmatter text verbatim", () => {
    const doc = parsed("\uFEFF---\r\nname: pdf # the name\r\ndescription: d\r\n---\r\n\r\nBody");
    expect(doc).toMatchObject({
      newline: "\r\n",
      bom: true,
      frontmatterText: "name: pdf # the name\r\ndescription: d\r\n",
      body: "\r\nBody",
    });
  });

  it("keeps optional and unknown fields verbatim", () => {
    const doc = parsed(
      [
        "---",
        "name: pdf",
        "description: d",
        "license: Apache-2.0",
        "compatibility: Needs poppler",
        "metadata:",
        "  author: ada",
        '  version: "1.0"',
        "allowed-tools: Bash(git:*) Read",
        "model: opus",
        "argument-hint: '[file]'",
        "---",
        "",
      ].join("\n"),
    );
    expect(doc.frontmatter).toEqual({
      name: "pdf",
      description: "d",
      license: "Apache-2.0",
      compatibility: "Needs poppler",
      metadata: { author: "ada", version: "1.0" },
      "allowed-tools": "Bash(git:*) Read",
      model: "opus",
      "argument-hint": "[file]",
    });
  });

  it("accepts allowed-tools as a YAML list of names, kept as written (issue 22)", () => {
    const text = "---\nname: pdf\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\n---\n";
    const doc = parsed(text);
    expect(doc.frontmatter["allowed-tools"]).toEqual(["Read", "Bash(git:*)"]);
    expect(doc.frontmatterText).toBe("name: pdf\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\n");
  });

  it("applies the same rules to personas", () => {
    expect(
      parsed("---\nname: reviewer\ndescription: A reviewer.\n---\n", { kind: "persona", name: "reviewer" }).name,
    ).toBe("reviewer");
  });
});

describe("parseSkillDocument refuses", () => {
  const fm = (...lines: string[]) => `---\n${lines.join("\n")}\n---\nBody\n`;
  const ok = ["name: pdf", "description: d"];

  it.each([
    ["no frontmatter", "# Just markdown\n", 1, undefined, "must start with frontmatter"],
    ["an empty file", "", 1, undefined, "must start with frontmatter"],
    ["text before the fence", "\n---\nname: a\ndescription: d\n---\n", 1, undefined, "must start with frontmatter"],
    ["a missing closing fence", "---\nname: pdf\ndescription: d\n# Body\n", 1, undefined, "never closed"],
    ["an empty frontmatter", "---\n---\nBody", 2, undefined, "is empty"],
    ["a list at the top", fm("- name", "- description"), 2, undefined, "is a list"],
    ["a scalar at the top", fm("just text"), 2, undefined, "is a single value"],
    ["malformed YAML", fm("name: [unclosed", "description: d"), 3, undefined, "not valid YAML"],
    ["bad indentation", fm("name: pdf", "description: d", "  x: 1"), 3, undefined, "not valid YAML"],
    ["a duplicate key", fm(...ok, "name: other"), 4, "name", "more than once"],
    ["an alias", fm("name: pdf", "description: &d text", "license: *d"), 3, "description", "anchor &d"],
    ["an anchor alone", fm("name: pdf", "description: &d text"), 3, "description", "anchor &d"],
    ["a !!str tag", fm("name: pdf", "description: !!str text"), 3, "description", "tag !!str"],
    ["a !!binary tag", fm(...ok, "icon: !!binary aGVsbG8="), 4, "icon", "tag !!binary"],
    ["a custom tag", fm(...ok, "x: !custom v"), 4, "x", "tag !custom"],
    ["a tag deep in metadata", fm(...ok, "metadata:", "  a: !!str v"), 5, "metadata", "tag !!str"],
    ["a non-text key in metadata", fm(...ok, "metadata:", "  2: v"), 5, "metadata", "keys must be plain text"],
    ["a non-text key", fm(...ok, "1: one"), 4, undefined, "keys must be plain text"],
    ["a missing name", fm("description: d"), null, "name", "is missing"],
    ["a numeric name", fm("name: 42", "description: d"), 2, "name", "must be text"],
    ["capitals in the name", fm("name: PDF", "description: d"), 2, "name", "lowercase"],
    ["an underscore in the name", fm("name: pdf_tools", "description: d"), 2, "name", "lowercase"],
    ["a leading hyphen", fm("name: -pdf", "description: d"), 2, "name", "start or end"],
    ["a double hyphen", fm("name: pdf--x", "description: d"), 2, "name", "two hyphens"],
    ["a 65-character name", fm(`name: ${"a".repeat(65)}`, "description: d"), 2, "name", "at most 64"],
    ["a missing description", fm("name: pdf"), null, "description", "is missing"],
    ["an empty description", fm("name: pdf", 'description: ""'), 3, "description", "is empty"],
    ["a blank description", fm("name: pdf", "description: '   '"), 3, "description", "is empty"],
    ["a null description", fm("name: pdf", "description:"), 3, "description", "must be text"],
    ["a list description", fm("name: pdf", "description: [a, b]"), 3, "description", "must be text"],
    ["a 1025-character description", fm("name: pdf", `description: ${"x".repeat(1025)}`), 3, "description", "1025"],
    ["a numeric license", fm(...ok, "license: 2"), 4, "license", "must be text"],
    ["an empty compatibility", fm(...ok, "compatibility: ''"), 4, "compatibility", "must be text"],
    ["a 501-character compatibility", fm(...ok, `compatibility: ${"c".repeat(501)}`), 4, "compatibility", "501"],
    ["metadata as a list", fm(...ok, "metadata: [a]"), 4, "metadata", "must be a map"],
    ["nested metadata", fm(...ok, "metadata:", "  author:", "    name: ada"), 5, "metadata.author", "nested"],
    ["a numeric metadata value", fm(...ok, "metadata:", "  version: 1.0"), 5, "metadata.version", "quote it"],
    [
      "allowed-tools as a list with a non-text item",
      fm(...ok, "allowed-tools:", "  - Read", "  - [Bash]"),
      5,
      "allowed-tools",
      "tool names as text",
    ],
    ["allowed-tools as a number", fm(...ok, "allowed-tools: 3"), 4, "allowed-tools", "must be text"],
  ])("%s", (_name, text, line, field, message) => {
    const result = parseSkillDocument(text, skill);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const [first] = result.problems;
    expect(first?.line).toBe(line);
    expect(first?.field).toBe(field);
    expect(first?.message).toContain(message);
  });

  it("refuses a name that differs from the item's name", () => {
    const result = parseSkillDocument("---\nname: pdf\ndescription: d\n---\n", { kind: "skill", name: "pdf-tools" });
    expect(result).toEqual({
      ok: false,
      problems: [
        {
          line: 2,
          field: "name",
          message: "the frontmatter name must equal the skill's name: write name: pdf-tools (it says pdf).",
        },
      ],
    });
  });

  it("reports an alias and its anchor separately, and every field problem at once", () => {
    const aliases = parseSkillDocument("---\nname: pdf\ndescription: &d x\nlicense: *d\n---\n", skill);
    expect(aliases.ok ? [] : aliases.problems.map((p) => [p.line, p.field, p.message.slice(0, 16)])).toEqual([
      [3, "description", "the anchor &d is"],
      [4, "license", "the alias *d is "],
    ]);
    const fields = parseSkillDocument("---\nname: Bad\ndescription: ''\n---\n", skill);
    expect(fields.ok ? [] : fields.problems.map((p) => p.field)).toEqual(["name", "description"]);
  });

  it("counts lines of the whole file in CRLF documents with a BOM", () => {
    const result = parseSkillDocument("\uFEFF---\r\nname: pdf\r\n# note\r\ndescription: ''\r\n---\r\n", skill);
    expect(result.ok ? null : result.problems[0]?.line).toBe(4);
  });

  it("names the persona document in its messages", () => {
    const result = parseSkillDocument("no frontmatter", { kind: "persona" });
    expect(result.ok ? "" : result.problems[0]?.message).toMatch(/^PERSONA\.md must start/);
  });

  it("formats a problem for people", () => {
    expect(formatDocProblem("SKILL.md", { line: 3, field: "description", message: "is empty." })).toBe(
      "SKILL.md line 3, description: is empty.",
    );
    expect(formatDocProblem("SKILL.md", { line: null, message: "x" })).toBe("SKILL.md: x");
  });
});

describe("renderSkillDocument", () => {
  it("writes the documented layout", () => {
    expect(renderSkillDocument({ name: "pdf", description: "Read PDFs.", body: "# PDF\n" })).toBe(
      "---\nname: pdf\ndescription: Read PDFs.\n---\n# PDF\n",
    );
  });

  it.each([
    ["plain"],
    ["Use when: the user asks # not a comment"],
    ["- starts like a list"],
    ["true"],
    ["123"],
    ["null"],
    ["'quoted' and \"double\""],
    ["multi\nline\n"],
    ["  leading spaces"],
    ["café 日本語 🚀"],
    ["tab\tand \\ backslash"],
    ["x".repeat(1024)],
  ])("round-trips the description %j", (description) => {
    const text = renderSkillDocument({
      name: "pdf",
      description,
      body: "Body",
      extra: { model: "opus: 4", license: "MIT" },
    });
    const doc = parsed(text, { kind: "skill", name: "pdf" });
    expect(doc.description).toBe(description);
    expect(doc.body).toBe("Body");
    expect(doc.frontmatter).toMatchObject({ model: "opus: 4", license: "MIT" });
  });

  it("refuses extra fields that would override name or description", () => {
    expect(() => renderSkillDocument({ name: "a", description: "d", body: "", extra: { name: "b" } })).toThrow(
      TypeError,
    );
  });
});

describe("replaceDescription", () => {
  /** Asserts that only the bytes between `before` and `after` changed. */
  function expectOnlyDescriptionChanged(text: string, result: string, oldValue: string, newValue: string) {
    const at = text.indexOf(oldValue);
    expect(at).toBeGreaterThan(0);
    expect(result.slice(0, at)).toBe(text.slice(0, at));
    const tail = text.slice(at + oldValue.length);
    expect(result.endsWith(tail)).toBe(true);
    expect(result.slice(at, result.length - tail.length)).toBe(newValue);
  }

  it.each([
    ["a plain value", "---\nname: pdf\ndescription: Old one\n---\nBody\n", "Old one", "New one", "New one"],
    [
      "keeps a trailing comment",
      "---\nname: pdf # n\ndescription: Old # why\nlicense: 'MIT'\n---\nB",
      "Old",
      "New",
      "New",
    ],
    ["double-quoted stays double-quoted", '---\nname: p\ndescription: "Old"\n---\n', '"Old"', "Néw", '"Néw"'],
    ["single-quoted stays single-quoted", "---\nname: p\ndescription: 'Old'\n---\n", "'Old'", "It's", "'It''s'"],
    ["plain that needs quoting", "---\nname: p\ndescription: Old\n---\n", "Old", "Use when: x", '"Use when: x"'],
    [
      "a multi-line value into a one-line original",
      "---\nname: p\ndescription: Old # c\n---\n",
      "Old",
      "a\nb",
      '"a\\nb"',
    ],
    [
      "a folded block",
      "---\nname: p\ndescription: >\n  old\n  text\nlicense: MIT\n---\n",
      ">\n  old\n  text\n",
      "new text",
      ">-\n  new text\n",
    ],
    ["a literal block", "---\nname: p\ndescription: |\n  old\nx: 1\n---\n", "|\n  old\n", "l1\nl2", "|-\n  l1\n  l2\n"],
    ["a block at the end", "---\nname: p\ndescription: |-\n  old\n---\nB", "|-\n  old\n", "n", "|-\n  n\n"],
    ["an empty value", "---\nname: p\ndescription:\nx: 1\n---\n", "description:", "new", "description: new"],
    ["a value on the next line", "---\nname: p\ndescription:\n  old\n  text\nx: 1\n---\n", "old\n  text", "new", "new"],
    ["a flow mapping", "---\n{name: p, description: old}\n---\n", "old", "a, b", '"a, b"'],
  ])("%s", (_name, text, oldValue, description, newValue) => {
    const result = replaceDescription(text, description);
    expectOnlyDescriptionChanged(text, result, oldValue, newValue);
    expect(parsed(result).description).toBe(description);
  });

  it("keeps CRLF line endings, the BOM, comments and key order", () => {
    const text =
      "\uFEFF---\r\n# top\r\nname: pdf\r\ndescription: >\r\n  old\r\n  text\r\nmodel: 'opus' # m\r\n---\r\nBody\r\n";
    const result = replaceDescription(text, "first\nsecond");
    expect(result).toBe(
      "\uFEFF---\r\n# top\r\nname: pdf\r\ndescription: >-\r\n  first\r\n\r\n  second\r\nmodel: 'opus' # m\r\n---\r\nBody\r\n",
    );
    expect(parsed(result)).toMatchObject({
      description: "first\nsecond",
      bom: true,
      newline: "\r\n",
      body: "Body\r\n",
    });
  });

  it("indents a block value under an indented key", () => {
    const text = "---\n  name: p\n  description: |\n    old\n---\n";
    expect(replaceDescription(text, "a\nb")).toBe("---\n  name: p\n  description: |-\n    a\n    b\n---\n");
  });

  it("adds a missing description after the name", () => {
    const text = "---\nname: pdf # n\nlicense: MIT\n---\nB";
    expect(replaceDescription(text, "Added: yes")).toBe(
      '---\nname: pdf # n\ndescription: "Added: yes"\nlicense: MIT\n---\nB',
    );
  });

  it("fixes a description that was too long", () => {
    const text = `---\nname: p\ndescription: ${"x".repeat(2000)}\n---\n`;
    expect(parseSkillDocument(text, skill).ok).toBe(false);
    expect(parsed(replaceDescription(text, "short")).description).toBe("short");
  });

  it.each([
    ["no frontmatter", "# title"],
    ["malformed YAML", "---\nname: [x\ndescription: d\n---\n"],
    ["an alias", "---\nname: &n p\ndescription: *n\n---\n"],
  ])("refuses to edit a document with %s", (_name, text) => {
    expect(() => replaceDescription(text, "d")).toThrow(AppError);
  });
});

describe("replaceBody", () => {
  it.each([
    [
      "LF",
      "---\nname: p # keep\ndescription: d\n---\nOld body\n",
      "New\nbody",
      "---\nname: p # keep\ndescription: d\n---\nNew\nbody",
    ],
    [
      "CRLF and BOM",
      "\uFEFF---\r\nname: p\r\ndescription: d\r\n---\r\nOld",
      "New",
      "\uFEFF---\r\nname: p\r\ndescription: d\r\n---\r\nNew",
    ],
    ["a fence on the last line", "---\nname: p\ndescription: d\n---", "New", "---\nname: p\ndescription: d\n---\nNew"],
    ["an empty body", "---\nname: p\ndescription: d\n---\nOld", "", "---\nname: p\ndescription: d\n---\n"],
    [
      "--- in the old body",
      "---\nname: p\ndescription: d\n---\nA\n---\nB",
      "C",
      "---\nname: p\ndescription: d\n---\nC",
    ],
    ["invalid fields are left alone", "---\nname: Bad_Name\n---\nOld", "New", "---\nname: Bad_Name\n---\nNew"],
  ])("%s", (_name, text, body, expected) => {
    expect(replaceBody(text, body)).toBe(expected);
  });

  it("round-trips with parseSkillDocument", () => {
    const text = "---\nname: p\ndescription: d\n---\n\n# Title\n";
    const doc = parsed(text);
    expect(replaceBody(text, doc.body)).toBe(text);
    expect(parsed(replaceBody(text, "\u00e9\r\nx")).body).toBe("\u00e9\r\nx");
  });

  it("refuses a document without frontmatter", () => {
    expect(() => replaceBody("just text", "x")).toThrow(AppError);
  });
});

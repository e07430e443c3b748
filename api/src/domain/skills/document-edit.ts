/**
 * Writing documents: a new one from fields, or one field of an existing one. Edits splice new
 * text into the original at the YAML node's source range, so comments, key order, other fields'
 * quoting, line endings and a BOM stay exactly as the author wrote them.
 */
import { Document, isCollection, isScalar, type Node, Scalar } from "yaml";
import { AppError } from "../../errors";
import { type DocProblem, type FrontmatterParts, parseFrontmatterYaml, splitFrontmatter } from "./frontmatter";

/** No folding: a long description stays on one line, as people write it. */
const STRINGIFY = { lineWidth: 0, minContentWidth: 0 } as const;

/**
 * A new document: `---`, name, description and any extra string fields, `---`, a blank line,
 * then the body. Parsing it back gives the same fields and `"\n" + body` as the body (the body is
 * everything after the closing fence's line break).
 */
export function renderSkillDocument(fields: {
  name: string;
  description: string;
  body: string;
  extra?: Record<string, string>;
}): string {
  const extra = fields.extra ?? {};
  if ("name" in extra || "description" in extra) throw new TypeError("extra must not set name or description");
  const doc = new Document({ name: fields.name, description: fields.description, ...extra });
  return `---\n${doc.toString(STRINGIFY)}---\n${fields.body}`;
}

/** Everything after the closing fence replaced by `body`; the frontmatter is untouched. */
export function replaceBody(text: string, body: string): string {
  const parts = frame(text);
  const head = text.slice(0, parts.bodyStart);
  // A closing fence on the last line has no line break yet; the body must start on its own line.
  const separator = body !== "" && !head.endsWith("\n") ? parts.newline : "";
  return head + separator + body;
}

/** The description's value replaced in place; every other byte of the document is kept. */
export function replaceDescription(text: string, description: string): string {
  const parts = frame(text);
  const parsed = parseFrontmatterYaml(parts.frontmatterText);
  if (!parsed.ok) throw notEditable(parsed.problems);
  const yaml = parts.frontmatterText;
  const pair = parsed.map.items.find((item) => isScalar(item.key) && item.key.value === "description");

  let edited: string;
  if (pair === undefined) {
    if (parsed.map.flow)
      throw notEditable([{ line: 2, message: "add a description to the { … } frontmatter by editing the document." }]);
    // No description yet: add one after the name line, or at the end of the frontmatter.
    const name = parsed.map.items.find((item) => isScalar(item.key) && item.key.value === "name");
    const nameEnd = name && isScalar(name.value) ? name.value.range?.[2] : undefined;
    const lineEnd = nameEnd === undefined ? -1 : yaml.indexOf("\n", nameEnd - 1);
    const at = lineEnd === -1 ? yaml.length : lineEnd + 1;
    const indent = columnOf(yaml, keyStart(parsed.map.items[0]?.key) ?? 0);
    const rendered = renderValue(description, undefined, indent).replace(/\n$/, "");
    const line = withNewline(`${" ".repeat(indent)}description: ${rendered}\n`, parts);
    edited =
      yaml.slice(0, at) + (at > 0 && !yaml.slice(0, at).endsWith("\n") ? parts.newline : "") + line + yaml.slice(at);
  } else {
    const value = pair.value as Node | null;
    const range = value?.range;
    if (!range) throw new Error("a parsed description has no source range");
    const [start, end] = range;
    const original = yaml.slice(start, end);
    // Inside `{ … }` a plain scalar may not hold `,` or `}`; quoting is always safe there.
    const type = parsed.map.flow ? "QUOTE_DOUBLE" : isScalar(value) ? value.type : undefined;
    let replacement = renderValue(description, type, columnOf(yaml, keyStart(pair.key) ?? start));
    if (original.endsWith("\n") && !replacement.endsWith("\n")) replacement += "\n";
    if (!original.endsWith("\n")) replacement = replacement.replace(/\n$/, "");
    // `description:` with nothing after the colon has an empty range right at the line break.
    if (start === end && yaml[start - 1] === ":") replacement = ` ${replacement}`;
    edited = yaml.slice(0, start) + withNewline(replacement, parts) + yaml.slice(end);
  }

  const result = text.slice(0, parts.yamlStart) + edited + text.slice(parts.yamlStart + yaml.length);
  // The splice must say exactly what was asked; a rendering slip must never save a different text.
  const check = parseFrontmatterYaml(edited);
  const written =
    check.ok && check.map.items.find((item) => isScalar(item.key) && item.key.value === "description")?.value;
  if (!(isScalar(written) && written.value === description)) {
    throw new Error("replaceDescription produced a document that does not read back as the new description");
  }
  return result;
}

function frame(text: string): FrontmatterParts {
  const split = splitFrontmatter(text, "the document");
  if (!split.ok) throw notEditable([split.problem]);
  return split.parts;
}

function notEditable(problems: DocProblem[]): AppError {
  const listed = problems.map((p) => `${p.line === null ? "" : `line ${p.line}: `}${p.message}`).join("; ");
  return new AppError(
    "invalid_request",
    `The document's frontmatter must be fixed before a field can be edited on its own: ${listed}`,
    { details: problems.map((p) => ({ path: p.field ?? "document", message: p.message })) },
  );
}

function keyStart(key: unknown): number | undefined {
  return isScalar(key) || isCollection(key) ? key.range?.[0] : undefined;
}

function columnOf(text: string, offset: number): number {
  return offset - (text.lastIndexOf("\n", offset - 1) + 1);
}

function withNewline(text: string, parts: FrontmatterParts): string {
  return parts.newline === "\n" ? text : text.replace(/\r?\n/g, "\r\n");
}

/**
 * The value as YAML source, in the original's style where the value allows it. A flow (plain or
 * quoted) original gets a one-line value, so a comment after it on the same line stays a
 * comment; a block original (`>`, `|`) gets a block scalar indented under its key.
 */
function renderValue(value: string, type: Scalar.Type | undefined, keyColumn: number): string {
  const render = (t: Scalar.Type | undefined) => {
    const scalar = new Scalar(value);
    if (t !== undefined) scalar.type = t;
    const doc = new Document({});
    doc.add(doc.createPair("description", scalar));
    return doc.toString(STRINGIFY).slice("description: ".length);
  };
  if (type === "BLOCK_FOLDED" || type === "BLOCK_LITERAL") {
    const [header = "", ...lines] = render(type).split("\n");
    const pad = " ".repeat(keyColumn);
    return [header, ...lines.map((line) => (line === "" ? line : pad + line))].join("\n");
  }
  const flow = render(type).replace(/\n$/, "");
  return flow.includes("\n") ? render("QUOTE_DOUBLE").replace(/\n$/, "") : flow;
}

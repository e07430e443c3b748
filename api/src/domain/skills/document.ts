/**
 * `SKILL.md` / `PERSONA.md`: YAML frontmatter between `---` fences, then a Markdown body. Field
 * rules follow the Agent Skills specification (PROTOCOLS.md §7); the frontmatter is served to
 * clients verbatim, so what we accept must read the same in every client's YAML parser.
 */
import { isMap, isScalar, isSeq, type Pair, type YAMLMap } from "yaml";
import { type DocProblem, fileLineAt, parseFrontmatterYaml, splitFrontmatter } from "./frontmatter";
import { COMPATIBILITY_MAX_CHARS, DESCRIPTION_MAX_CHARS } from "./limits";
import { docNameFor, type ItemKind, skillNameProblem } from "./names";

export { renderSkillDocument, replaceBody, replaceDescription } from "./document-edit";
export type { DocProblem } from "./frontmatter";

export interface SkillDocument {
  /** The YAML between the fences, verbatim. */
  frontmatterText: string;
  frontmatter: Record<string, unknown>;
  /** Everything after the closing fence's line break, byte for byte. */
  body: string;
  name: string;
  description: string;
  newline: "\n" | "\r\n";
  /**
   * Whether the text starts with a UTF-8 BOM. Decode with `new TextDecoder("utf-8", { ignoreBOM:
   * true })` to keep it: by default TextDecoder drops it.
   */
  bom: boolean;
}

export type ParseSkillDocumentResult = { ok: true; doc: SkillDocument } | { ok: false; problems: DocProblem[] };

/** One line for people: `SKILL.md line 3, description: is empty; …`. */
export function formatDocProblem(docName: string, problem: DocProblem): string {
  const where = problem.line === null ? docName : `${docName} line ${problem.line}`;
  return `${where}${problem.field ? `, ${problem.field}` : ""}: ${problem.message}`;
}

const codePoints = (text: string) => [...text].length;

export function parseSkillDocument(text: string, expect: { kind: ItemKind; name?: string }): ParseSkillDocumentResult {
  const docName = docNameFor(expect.kind);
  const split = splitFrontmatter(text, docName);
  if (!split.ok) return { ok: false, problems: [split.problem] };
  const { frontmatterText, bom, newline, bodyStart } = split.parts;
  const parsed = parseFrontmatterYaml(frontmatterText);
  if (!parsed.ok) return { ok: false, problems: parsed.problems };

  const problems = checkFields(parsed.map, frontmatterText, expect);
  if (problems.length > 0) return { ok: false, problems };
  const frontmatter = parsed.doc.toJS() as Record<string, unknown>;
  return {
    ok: true,
    doc: {
      frontmatterText,
      frontmatter,
      body: text.slice(bodyStart),
      name: String(frontmatter.name),
      description: String(frontmatter.description),
      newline,
      bom,
    },
  };
}

type Entry = { pair: Pair; line: number; valueLine: number };

function checkFields(map: YAMLMap, frontmatterText: string, expect: { kind: ItemKind; name?: string }): DocProblem[] {
  const entries = new Map<string, Entry>();
  for (const pair of map.items) {
    if (!isScalar(pair.key)) continue;
    const keyStart = pair.key.range?.[0] ?? 0;
    const valueStart =
      isScalar(pair.value) || isMap(pair.value) || isSeq(pair.value) ? pair.value.range?.[0] : undefined;
    entries.set(String(pair.key.value), {
      pair,
      line: fileLineAt(frontmatterText, keyStart),
      valueLine: fileLineAt(frontmatterText, valueStart ?? keyStart),
    });
  }
  const problems: DocProblem[] = [];
  const problem = (field: string, line: number | null, message: string) => problems.push({ line, field, message });
  const kindWord = expect.kind;

  const name = entries.get("name");
  const nameValue = stringValue(name);
  if (!name) {
    problem("name", null, `is missing; add a line name: ${expect.name ?? `my-${kindWord}`} to the frontmatter.`);
  } else if (nameValue === undefined) {
    problem("name", name.valueLine, "must be text, such as name: pdf-tools.");
  } else {
    const bad = skillNameProblem(nameValue);
    if (bad !== null) problem("name", name.valueLine, `${bad}.`);
    else if (expect.name !== undefined && nameValue !== expect.name) {
      problem(
        "name",
        name.valueLine,
        `the frontmatter name must equal the ${kindWord}'s name: write name: ${expect.name} (it says ${nameValue}).`,
      );
    }
  }

  const description = entries.get("description");
  const descriptionValue = stringValue(description);
  if (!description) {
    problem("description", null, `is missing; add description: saying what the ${kindWord} does and when to use it.`);
  } else if (descriptionValue === undefined) {
    problem("description", description.valueLine, "must be text; quote it if YAML reads it as a number, date or list.");
  } else if (descriptionValue.trim() === "") {
    problem("description", description.valueLine, `is empty; say what the ${kindWord} does and when to use it.`);
  } else if (codePoints(descriptionValue) > DESCRIPTION_MAX_CHARS) {
    problem(
      "description",
      description.valueLine,
      `is ${codePoints(descriptionValue)} characters long; shorten it to at most ${DESCRIPTION_MAX_CHARS} and move details into the body.`,
    );
  }

  const license = entries.get("license");
  if (license && stringValue(license) === undefined) {
    problem("license", license.valueLine, "must be text, such as license: MIT or license: LICENSE.txt.");
  }

  const compatibility = entries.get("compatibility");
  if (compatibility) {
    const value = stringValue(compatibility);
    if (value === undefined || value.trim() === "") {
      problem(
        "compatibility",
        compatibility.valueLine,
        "must be text describing what the environment needs, or be removed.",
      );
    } else if (codePoints(value) > COMPATIBILITY_MAX_CHARS) {
      problem(
        "compatibility",
        compatibility.valueLine,
        `is ${codePoints(value)} characters long; shorten it to at most ${COMPATIBILITY_MAX_CHARS}.`,
      );
    }
  }

  const metadata = entries.get("metadata");
  if (metadata) {
    const value = metadata.pair.value;
    if (!isMap(value)) {
      problem(
        "metadata",
        metadata.valueLine,
        "must be a map of keys to text, such as metadata: then indented author: ada lines.",
      );
    } else {
      for (const item of value.items) {
        const key = isScalar(item.key) ? String(item.key.value) : "?";
        const at = (isScalar(item.key) && item.key.range?.[0]) || 0;
        if (!isScalar(item.value) || typeof item.value.value !== "string") {
          const nested = isMap(item.value) || isSeq(item.value);
          problem(
            `metadata.${key}`,
            fileLineAt(frontmatterText, at),
            nested
              ? "must be text, not a nested map or list; metadata holds only key: text pairs."
              : `must be text; quote it, as in ${key}: "${isScalar(item.value) ? String(item.value.value ?? "") : ""}".`,
          );
        }
      }
    }
  }

  // A space-separated line or a YAML list of names: the Agent Skills reference parser reads
  // both, and the document is stored as written, so either spelling stays the user's.
  const allowedTools = entries.get("allowed-tools");
  const toolList = allowedTools?.pair.value;
  const isNameList =
    isSeq(toolList) && toolList.items.every((item) => isScalar(item) && typeof item.value === "string");
  if (allowedTools && stringValue(allowedTools) === undefined && !isNameList) {
    problem(
      "allowed-tools",
      allowedTools.valueLine,
      isSeq(toolList)
        ? "must list tool names as text, such as - Read and - Bash(git:*), one per line."
        : "must be text: space-separated tool names, such as allowed-tools: Bash(git:*) Read, or a list of them.",
    );
  }
  return problems;
}

function stringValue(entry: Entry | undefined): string | undefined {
  const value = entry?.pair.value;
  return isScalar(value) && typeof value.value === "string" ? value.value : undefined;
}

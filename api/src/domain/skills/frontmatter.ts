/**
 * The frame of a `SKILL.md` / `PERSONA.md`: the `---` fences, and the YAML between them parsed
 * strictly. Field rules live in `document.ts`; this module knows only YAML and line numbers.
 */
import { type Document, isAlias, isMap, isPair, isScalar, isSeq, parseDocument, visit, type YAMLMap } from "yaml";

export interface DocProblem {
  /** 1-based line of the whole file (the frontmatter's first line is line 2), when known. */
  line: number | null;
  field?: string;
  message: string;
}

export interface FrontmatterParts {
  bom: boolean;
  newline: "\n" | "\r\n";
  /** The YAML between the fences, verbatim, ending with its last line's line break. */
  frontmatterText: string;
  /** Offset of `frontmatterText` in the whole text. */
  yamlStart: number;
  /** Offset just after the closing fence's line break (or the end of the text). */
  bodyStart: number;
}

const FENCE = /^---[ \t]*$/;

/** Where the fences are. The body is `text.slice(bodyStart)`, byte for byte. */
export function splitFrontmatter(
  text: string,
  docName: string,
): { ok: true; parts: FrontmatterParts } | { ok: false; problem: DocProblem } {
  const bom = text.startsWith("\uFEFF");
  const start = bom ? 1 : 0;
  const opening = /---[ \t]*(\r?\n)/y;
  opening.lastIndex = start;
  const open = opening.exec(text);
  if (!open) {
    return {
      ok: false,
      problem: {
        line: 1,
        message:
          `${docName} must start with frontmatter: a line containing only ---, then name: and description: ` +
          "lines, then another line containing only ---.",
      },
    };
  }
  const newline = open[1] === "\r\n" ? "\r\n" : "\n";
  const yamlStart = start + open[0].length;
  let pos = yamlStart;
  while (pos <= text.length) {
    const nl = text.indexOf("\n", pos);
    const end = nl === -1 ? text.length : nl;
    const line = text.slice(pos, end).replace(/\r$/, "");
    if (FENCE.test(line)) {
      const bodyStart = nl === -1 ? text.length : nl + 1;
      return { ok: true, parts: { bom, newline, frontmatterText: text.slice(yamlStart, pos), yamlStart, bodyStart } };
    }
    if (nl === -1) break;
    pos = nl + 1;
  }
  return {
    ok: false,
    problem: {
      line: 1,
      message: "the frontmatter opened on line 1 is never closed; add a line containing only --- after its last field.",
    },
  };
}

/** 1-based line of the whole file for an offset into the frontmatter text. */
export function fileLineAt(frontmatterText: string, offset: number): number {
  let line = 2;
  for (let i = frontmatterText.indexOf("\n"); i !== -1 && i < offset; i = frontmatterText.indexOf("\n", i + 1)) line++;
  return line;
}

export type ParsedYaml =
  | { ok: true; doc: Document.Parsed; map: YAMLMap.Parsed }
  | { ok: false; problems: DocProblem[] };

/** `"Map keys must be unique at line 2, column 1:\n\n…"` → `"Map keys must be unique"`. */
function yamlMessage(message: string): string {
  return (message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
}

/**
 * Parse strictly. Refused: YAML errors and warnings, duplicate keys, anchors and aliases (an alias
 * can expand a few bytes into a huge value, and clients' parsers disagree on them), explicit tags
 * (`!!binary`, custom tags: clients would read different values), keys that are not plain text,
 * and a top level that is not a mapping.
 */
export function parseFrontmatterYaml(frontmatterText: string): ParsedYaml {
  const doc = parseDocument(frontmatterText, { uniqueKeys: true, strict: true, prettyErrors: true });
  const lineOf = (offset: number | undefined) => (offset === undefined ? null : fileLineAt(frontmatterText, offset));
  const keyAt = (offset: number | undefined) => {
    if (!isMap(doc.contents)) return undefined;
    const pair = doc.contents.items.find((item) => isScalar(item.key) && item.key.range?.[0] === offset);
    return pair && isScalar(pair.key) ? String(pair.key.value) : undefined;
  };

  /**
   * Where the field holding an offset starts. The parser reports an unclosed quote or bracket
   * where it gave up (often the closing fence); the problem starts at the field it opened in.
   */
  const fieldStartBefore = (offset: number): number | undefined => {
    if (!isMap(doc.contents)) return undefined;
    let start: number | undefined;
    for (const item of doc.contents.items) {
      const at = isScalar(item.key) ? item.key.range?.[0] : undefined;
      if (at !== undefined && at <= offset) start = at;
    }
    return start;
  };

  if (doc.errors.length > 0) {
    return {
      ok: false,
      problems: doc.errors.map((error) => {
        const start = error.code === "DUPLICATE_KEY" ? undefined : fieldStartBefore(error.pos[0]);
        const reported = error.linePos ? error.linePos[0].line + 1 : lineOf(error.pos[0]);
        const line = start === undefined ? reported : lineOf(start);
        if (error.code === "DUPLICATE_KEY") {
          const field = keyAt(error.pos[0]);
          return {
            line,
            ...(field === undefined ? {} : { field }),
            message: `${field ?? "this key"} appears more than once in the frontmatter; keep one.`,
          };
        }
        return { line, message: `the frontmatter is not valid YAML: ${yamlMessage(error.message)}.` };
      }),
    };
  }

  const problems: DocProblem[] = [];
  /** The top-level field a node sits in: the first pair on its way down from the document. */
  const fieldOf = (path: readonly unknown[]): { field?: string } => {
    const pair = path.find(isPair);
    return pair && isScalar(pair.key) && typeof pair.key.value === "string" ? { field: pair.key.value } : {};
  };
  visit(doc, {
    Alias(_key, node, path) {
      problems.push({
        line: lineOf(node.range?.[0]),
        ...fieldOf(path),
        message: `the alias *${node.source} is not allowed in frontmatter; write the value out in full.`,
      });
    },
    Node(_key, node, path) {
      if ((isScalar(node) || isMap(node) || isSeq(node)) && node.anchor) {
        problems.push({
          line: lineOf(node.range?.[0]),
          ...fieldOf(path),
          message: `the anchor &${node.anchor} is not allowed in frontmatter; remove it.`,
        });
      }
      if ((isScalar(node) || isMap(node) || isSeq(node)) && node.tag) {
        problems.push({
          line: lineOf(node.range?.[0]),
          ...fieldOf(path),
          message: `the YAML tag ${node.tag.replace("tag:yaml.org,2002:", "!!")} is not allowed in frontmatter; remove it and write a plain value.`,
        });
      }
    },
    Pair(_key, pair, path) {
      if (!(isScalar(pair.key) && typeof pair.key.value === "string") && !isAlias(pair.key)) {
        const keyNode = pair.key as { range?: [number, number, number] } | null;
        problems.push({
          line: lineOf(keyNode?.range?.[0]),
          ...fieldOf(path),
          message:
            "frontmatter keys must be plain text such as description; quote a key that YAML reads as a number or a list.",
        });
      }
    },
  });
  for (const warning of doc.warnings) {
    // Tags are reported above, in plainer words.
    if (warning.code === "TAG_RESOLVE_FAILED") continue;
    problems.push({
      line: warning.linePos ? warning.linePos[0].line + 1 : lineOf(warning.pos[0]),
      message: `the frontmatter is not valid YAML: ${yamlMessage(warning.message)}.`,
    });
  }
  if (problems.length > 0) return { ok: false, problems };

  if (!isMap(doc.contents)) {
    const what = doc.contents === null ? "is empty" : isSeq(doc.contents) ? "is a list" : "is a single value";
    return {
      ok: false,
      problems: [
        {
          line: doc.contents === null ? 2 : lineOf(doc.contents.range?.[0]),
          message: `the frontmatter ${what}; it must be fields, one per line, such as name: my-skill and description: ….`,
        },
      ],
    };
  }
  return { ok: true, doc, map: doc.contents };
}

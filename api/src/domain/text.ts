/**
 * What a text field may hold. Postgres refuses U+0000 outright, a lone UTF-16 surrogate would be
 * stored as U+FFFD (silently changed), and other control characters hide text in the console and
 * in agents' context. One rule: every input field applies it (the builders in schemas/common.ts), and so do
 * the rules that read text from elsewhere (archive entry names, project paths):
 * - `line` (names, slugs, paths, URLs, header values): no control characters (C0, DEL, C1) at all;
 * - `text` (descriptions, Markdown, pasted documents): tabs and line breaks, nothing else;
 * - `file` (a file's text content): anything but NUL, which only binary files carry.
 */
export type TextKind = "line" | "text" | "file";
const DISALLOWED: Record<TextKind, RegExp> = {
  line: /\p{Cc}|\p{Cs}/u,
  text: /(?![\t\n\r])\p{Cc}|\p{Cs}/u,
  // biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this finds.
  file: /\u0000|\p{Cs}/u,
};

/** Why `value` is not acceptable text of this kind, or null. Shared with rules outside zod (archives). */
export function textProblem(value: string, kind: TextKind = "line"): string | null {
  const found = DISALLOWED[kind].exec(value);
  if (!found) return null;
  const at = [...value.slice(0, found.index)].length + 1;
  const char = found[0];
  const code = char.codePointAt(0) ?? 0;
  if (code >= 0xd800 && code <= 0xdfff)
    return `holds a broken character (a lone UTF-16 surrogate) at character ${at}; send well-formed Unicode text`;
  const name = `U+${code.toString(16).toUpperCase().padStart(4, "0")}`;
  if (kind === "file") return `holds a NUL character (${name}) at character ${at}; send a binary file as contentBase64`;
  return `holds a control character (${name}) at character ${at}, which is not allowed${kind === "text" ? " (tabs and line breaks are)" : ""}; remove it`;
}

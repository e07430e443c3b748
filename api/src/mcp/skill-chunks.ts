import { type ToolResult, textResult } from "./results";
import { GET_CHUNK } from "./tools";

/** One file of a skill or persona, as a `skills get` reads it: its bytes and its manifest. */
export interface ReadFile {
  /** The name the call gave, and the `path` it gave (none for the document). */
  name: string;
  askedPath: string | undefined;
  path: string;
  /** The item's kind and its document's name (`SKILL.md`, `PERSONA.md`). */
  kind: "skill" | "persona";
  docName: string;
  start: number | undefined;
  bytes: Uint8Array;
  digest: string;
  files: { path: string; size: number; digest: string }[];
  /** Fields the structured result carries besides (an upstream skill's origin). */
  extra?: Record<string, unknown>;
}

/**
 * A `skills get` result, the one way both the user's own items and upstream skills are answered:
 * GET_CHUNK characters of the file from `start`, with notes saying how to read on and which other
 * files there are, and the structured fields the skills view renders.
 */
export function fileChunkResult(read: ReadFile): { result: ToolResult; chars: number } {
  const body = new TextDecoder("utf-8", { ignoreBOM: true }).decode(read.bytes);
  const start = Math.min(read.start ?? 0, body.length);
  const chunk = body.slice(start, start + GET_CHUNK);
  const next = start + chunk.length < body.length ? start + chunk.length : null;
  const others = read.files.filter((f) => f.path !== read.path).map((f) => f.path);
  const note = [
    next !== null
      ? `\n\n[${body.length - next} more characters: call skills(action="get", name="${read.name}"${read.askedPath ? `, path="${read.askedPath}"` : ""}, start=${next})]`
      : "",
    read.path === read.docName && others.length
      ? `\n\n[Files of this ${read.kind}: ${others.join(", ")}. Read one with path.]`
      : "",
  ].join("");
  const result = textResult(`${chunk}${note}`, {
    name: read.name,
    ...read.extra,
    path: read.path,
    start,
    next_start: next,
    total_chars: body.length,
    digest: read.digest,
    files: read.files.map((f) => ({ path: f.path, size: f.size, digest: f.digest })),
  });
  return { result, chars: chunk.length + note.length };
}

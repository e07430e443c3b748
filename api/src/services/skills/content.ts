import { findCredentials } from "../../domain/skills/credentials";
import { digestOfAsync } from "../../domain/skills/digest";
import { parseSkillDocument, type SkillDocument } from "../../domain/skills/document";
import { checkSkillSizes } from "../../domain/skills/limits";
import { docNameFor, type ItemKind } from "../../domain/skills/names";
import { validateFilePaths } from "../../domain/skills/paths";
import { AppError, type ErrorDetail } from "../../errors";

/** A file of a version: new or changed files carry their bytes; unchanged ones only their digest. */
export interface ContentFile {
  path: string;
  size: number;
  digest: string;
  bytes?: Uint8Array;
}

export interface PreparedContent {
  kind: ItemKind;
  doc: SkillDocument;
  docText: string;
  files: ContentFile[];
  totalBytes: number;
}

export interface IncomingFile {
  path: string;
  size: number;
  /** Absent for a file carried over unchanged from the current version (already checked). */
  bytes?: Uint8Array;
  digest?: string;
  /** Carried over from the current version: its bytes were checked when they were written. */
  unchanged?: boolean;
}

// ignoreBOM keeps a leading BOM in the text, so edits write it back and bytes stay as written.
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Checks a whole skill before anything is stored, in the order that costs least: paths and
 * sizes (from sizes alone), then the document (YAML, fields, name), then credentials in the
 * files that are new. Throws one AppError that lists every problem with its file and line.
 */
export async function prepareContent(
  kind: ItemKind,
  expectedName: string | null,
  files: IncomingFile[],
): Promise<PreparedContent> {
  const docName = docNameFor(kind);
  const pathProblems = validateFilePaths(files.map((f) => f.path));
  if (pathProblems.length > 0) throw invalid("Some file paths are not valid", pathProblems);

  const sizeProblems = checkSkillSizes(files, docName);
  if (sizeProblems.length > 0) {
    throw new AppError(
      "payload_too_large",
      `The ${kind} is too large: ${sizeProblems.map((p) => `${p.path}: ${p.message}`).join("; ")}`,
      {
        details: sizeProblems.map((p) => ({ path: p.path, message: p.message })),
      },
    );
  }

  const docFile = files.find((f) => f.path === docName);
  if (!docFile?.bytes) {
    throw invalid(`A ${kind} needs a ${docName}`, [
      { path: docName, message: `is missing; every ${kind} has a ${docName} at its root` },
    ]);
  }
  let docText: string;
  try {
    docText = utf8.decode(docFile.bytes);
  } catch {
    throw invalid(`${docName} is not UTF-8 text`, [
      { path: docName, message: "is not valid UTF-8; save it as UTF-8 text" },
    ]);
  }
  const parsed = parseSkillDocument(docText, { kind, ...(expectedName ? { name: expectedName } : {}) });
  if (!parsed.ok) {
    throw invalid(
      `${docName} is not valid`,
      parsed.problems.map((p) => ({
        path: docName,
        message: p.field ? `${p.field}: ${p.message}` : p.message,
        ...(p.line ? { line: p.line } : {}),
      })),
    );
  }

  const fresh = files.filter((f): f is IncomingFile & { bytes: Uint8Array } => f.bytes !== undefined && !f.unchanged);
  const findings = await findCredentials(fresh.map((f) => ({ path: f.path, bytes: f.bytes })));
  if (findings.length > 0) {
    throw invalid(
      "Loadout refuses content that looks like a credential",
      findings.map((f) => ({ path: f.path, line: f.line, message: f.message })),
    );
  }

  const prepared = await Promise.all(
    files.map(async (f) => {
      if (f.bytes)
        return { path: f.path, size: f.bytes.byteLength, digest: await digestOfAsync(f.bytes), bytes: f.bytes };
      if (!f.digest) throw new Error(`unchanged file ${f.path} has no digest`);
      return { path: f.path, size: f.size, digest: f.digest };
    }),
  );
  prepared.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { kind, doc: parsed.doc, docText, files: prepared, totalBytes: prepared.reduce((n, f) => n + f.size, 0) };
}

function invalid(summary: string, details: ErrorDetail[]): AppError {
  const listed = details.map((d) => `${d.path}${d.line ? ` line ${d.line}` : ""}: ${d.message}`).join("; ");
  return new AppError("invalid_request", `${summary}: ${listed}`, { details });
}

/** Decodes `content` (UTF-8 text) or `contentBase64` (bytes) of a file in a request. */
export function fileBytes(
  path: string,
  input: { content?: string | undefined; contentBase64?: string | undefined },
): Uint8Array {
  if (input.content !== undefined && input.contentBase64 === undefined) return new TextEncoder().encode(input.content);
  if (input.contentBase64 !== undefined && input.content === undefined) {
    const clean = input.contentBase64.replace(/\s+/g, "");
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 === 1) {
      throw new AppError("invalid_request", `files: ${path}: contentBase64 is not valid base64.`, {
        details: [{ path, message: "contentBase64 is not valid base64" }],
      });
    }
    return Uint8Array.from(atob(clean), (ch) => ch.charCodeAt(0));
  }
  throw new AppError("invalid_request", `files: ${path}: give exactly one of content or contentBase64.`, {
    details: [{ path, message: "give exactly one of content or contentBase64" }],
  });
}

import { ApiError, type ErrorDetail } from "@/lib/api";

export type EditorField = "description" | "name" | "instructions";

export type EditorErrors = {
  fields: Partial<Record<EditorField, string[]>>;
  // Keyed by the file's path as the editor lists it.
  files: Record<string, string[]>;
  others: ErrorDetail[];
};

export const NO_EDITOR_ERRORS: EditorErrors = { fields: {}, files: {}, others: [] };

export function describeDetail(detail: ErrorDetail, withPath: boolean): string {
  // Some API messages already start with their file and line ("SKILL.md line 9: …"); say it once.
  if (detail.path && detail.message.startsWith(detail.path)) return detail.message;
  const where = [withPath && detail.path ? detail.path : null, detail.line !== undefined ? `line ${detail.line}` : null]
    .filter(Boolean)
    .join(", ");
  return where ? `${where}: ${detail.message}` : detail.message;
}

const FIELD_ALIASES: Record<string, EditorField> = {
  description: "description",
  name: "name",
  instructions: "instructions",
  body: "instructions",
};

/**
 * Places each refusal where it occurred: the SKILL.md / PERSONA.md and the instructions under the
 * instructions box (with the line), a file next to that file, the description and name under theirs.
 * `uploads` are the paths of new files in the order they were sent (POST names them `files.0…`).
 */
export function placeErrors(
  error: unknown,
  context: { documentName: string; filePaths: readonly string[]; uploads: readonly string[]; isNew: boolean },
): EditorErrors {
  const result: EditorErrors = { fields: {}, files: {}, others: [] };
  if (!(error instanceof ApiError)) return result;
  const addField = (field: EditorField, text: string) => {
    result.fields[field] = [...(result.fields[field] ?? []), text];
  };
  const addFile = (path: string, text: string) => {
    result.files[path] = [...(result.files[path] ?? []), text];
  };

  for (const detail of error.details) {
    const path = detail.path.replace(/^(body|input)\./, "");
    if (path === context.documentName || path.endsWith(`/${context.documentName}`)) {
      addField("instructions", describeDetail({ ...detail, path: context.documentName }, true));
      continue;
    }
    const filePath = path.replace(/^files[./]/, "");
    if (context.filePaths.includes(filePath)) {
      addFile(filePath, describeDetail(detail, false));
      continue;
    }
    const indexed = /^files[.[](\d+)/.exec(path);
    const uploaded = indexed?.[1] === undefined ? undefined : context.uploads[Number(indexed[1])];
    if (uploaded !== undefined) {
      addFile(uploaded, describeDetail(detail, false));
      continue;
    }
    const field = FIELD_ALIASES[path.split(/[.[\]]/)[0] ?? ""];
    if (field && (field !== "name" || context.isNew)) {
      addField(field, describeDetail(detail, false));
      continue;
    }
    result.others.push(detail);
  }
  return result;
}

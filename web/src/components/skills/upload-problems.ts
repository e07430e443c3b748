import { FILE_MAX_BYTES, formatSize } from "@loadout/api/domain/skills/limits";
import { validateFilePaths } from "@loadout/api/domain/skills/paths";
import type { Upload } from "./file-list";

/**
 * What can be told before sending, by the API's own path rules: a bad path, one that clashes with
 * a kept file or an earlier upload, the document's own name, a file over the limit. Keyed by
 * upload; the API checks all of it again.
 */
export function uploadProblems(
  uploads: readonly Upload[],
  kept: readonly string[],
  documentName: string,
): Record<string, string> {
  const problems: Record<string, string> = {};
  const replaced = new Set(uploads.map((upload) => upload.path));
  const before = kept.filter((path) => !replaced.has(path));
  uploads.forEach((upload, index) => {
    // validateFilePaths reports a clash on the later path, so each upload is checked after the ones before it.
    const earlier = uploads.slice(0, index).map((item) => item.path);
    const pathProblem = validateFilePaths([...before, ...earlier, upload.path]).find((p) => p.path === upload.path);
    if (upload.path === documentName) {
      problems[upload.key] = `${documentName} is written from the fields above; give this file another path.`;
    } else if (pathProblem) {
      problems[upload.key] = pathProblem.message;
    } else if (upload.file.size > FILE_MAX_BYTES) {
      problems[upload.key] =
        `${upload.file.name} is ${formatSize(upload.file.size)}; one file may be at most ${formatSize(FILE_MAX_BYTES)}.`;
    }
  });
  return problems;
}

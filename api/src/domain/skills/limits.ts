/**
 * Size limits of skills and personas (DESIGN.md, "Skills"; PROTOCOLS.md §3.3). They are checked
 * from sizes alone, before any body is read or stored, so a rejected write stores nothing.
 */
import type { DocName } from "./names";

export { NAME_MAX_CHARS } from "./names";

const KiB = 1024;
const MiB = 1024 * KiB;

/** `SKILL.md` / `PERSONA.md`: the body is loaded into an agent's context whole, so keep it readable. */
export const SKILL_DOC_MAX_BYTES = 128 * KiB;
/** Files per skill, the document included: the Skills extension's per-skill ceiling (512 resources). */
export const SKILL_MAX_FILES = 512;
/** All files of one skill together, the document included: the Skills extension's 16 MiB ceiling. */
export const SKILL_MAX_BYTES = 16 * MiB;
/** One file; equal to the per-skill total, so a lone large asset is refused with its own name. */
export const FILE_MAX_BYTES = 16 * MiB;
/** Distinct stored bytes per workspace, history included (identical content is stored once). */
export const WORKSPACE_QUOTA_BYTES = 1024 * MiB;
/** The description costs context in every session; the Agent Skills spec caps it at 1024 characters. */
export const DESCRIPTION_MAX_CHARS = 1024;
/** `compatibility` frontmatter field (Agent Skills spec). */
export const COMPATIBILITY_MAX_CHARS = 500;

export interface SizeProblem {
  /** The file concerned, or `""` for a problem of the skill as a whole. */
  path: string;
  message: string;
  code: "too_large" | "too_many_files";
}

/**
 * A size for people, rounded up to a tenth so that a size over a limit never reads as equal to
 * it (16 MiB + 1 byte is "16.1 MiB", not "16.0 MiB").
 */
export function formatSize(bytes: number): string {
  if (bytes < KiB) return bytes === 1 ? "1 byte" : `${bytes} bytes`;
  const [unit, size] = bytes < MiB ? (["KiB", KiB] as const) : (["MiB", MiB] as const);
  const tenths = Math.ceil((bytes / size) * 10) / 10;
  return `${Number.isInteger(tenths) ? tenths.toFixed(0) : tenths.toFixed(1)} ${unit}`;
}

const grouped = (n: number) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * A size over a limit, and the limit, as people read them. Rounded when the difference shows in
 * a tenth of the unit; in exact bytes when it does not (one byte over 128 KiB is
 * "131,073 bytes (1 byte over)", not "128.1 KiB").
 */
export function sizeOver(size: number, limit: number): { size: string; limit: string } {
  const unit = limit < MiB ? KiB : MiB;
  if (size - limit >= unit / 10 || limit < KiB) return { size: formatSize(size), limit: formatSize(limit) };
  const over = size - limit;
  return {
    size: `${grouped(size)} bytes (${over === 1 ? "1 byte" : `${grouped(over)} bytes`} over)`,
    limit: `${grouped(limit)} bytes (${formatSize(limit)})`,
  };
}

export function checkSkillSizes(files: { path: string; size: number }[], docName: DocName): SizeProblem[] {
  const problems: SizeProblem[] = [];
  let total = 0;
  for (const { path, size } of files) {
    // Sizes come from our own byte counts or the archive reader; anything else is a bug upstream.
    if (!Number.isSafeInteger(size) || size < 0) throw new RangeError(`invalid size for ${path}: ${size}`);
    total += size;
    // Messages do not name the file: the problem's path does, and it is shown before them.
    if (path === docName && size > SKILL_DOC_MAX_BYTES) {
      const shown = sizeOver(size, SKILL_DOC_MAX_BYTES);
      problems.push({
        path,
        code: "too_large",
        message:
          `is ${shown.size}; it may be at most ${shown.limit}. ` +
          `Move reference material into separate files (for example references/guide.md) and link to them from ${docName}.`,
      });
    } else if (size > FILE_MAX_BYTES) {
      const shown = sizeOver(size, FILE_MAX_BYTES);
      problems.push({
        path,
        code: "too_large",
        message:
          `is ${shown.size}; one file may be at most ${shown.limit}. ` +
          "Shrink or compress it, or link to where it is hosted instead of bundling it.",
      });
    }
  }
  if (files.length > SKILL_MAX_FILES) {
    problems.push({
      path: "",
      code: "too_many_files",
      message:
        `the skill has ${files.length} files; it may have at most ${SKILL_MAX_FILES}, ${docName} included. ` +
        "Remove files the agent does not need, or split it into several skills.",
    });
  }
  if (total > SKILL_MAX_BYTES) {
    const shown = sizeOver(total, SKILL_MAX_BYTES);
    problems.push({
      path: "",
      code: "too_large",
      message:
        `the skill's files add up to ${shown.size}; all files together, ${docName} included, ` +
        `may be at most ${shown.limit}. Remove or shrink large files, or split the skill.`,
    });
  }
  return problems;
}

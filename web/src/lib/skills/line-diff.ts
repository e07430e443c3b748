import { diffLines } from "diff";

export type DiffLine = {
  kind: "added" | "removed" | "same";
  text: string;
  oldLine: number | null;
  newLine: number | null;
};

// A run of lines to show, or a run of unchanged lines folded away (expandable).
export type DiffBlock = { kind: "lines"; lines: DiffLine[] } | { kind: "folded"; lines: DiffLine[] };

export const CONTEXT_LINES = 3;

function splitLines(value: string): string[] {
  const lines = value.split("\n");
  // diffLines keeps each line's newline; the last element after a final newline is empty.
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

export function lineDiff(before: string, after: string): DiffLine[] {
  const result: DiffLine[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const change of diffLines(before, after)) {
    for (const text of splitLines(change.value)) {
      if (change.added) result.push({ kind: "added", text, oldLine: null, newLine: newLine++ });
      else if (change.removed) result.push({ kind: "removed", text, oldLine: oldLine++, newLine: null });
      else result.push({ kind: "same", text, oldLine: oldLine++, newLine: newLine++ });
    }
  }
  return result;
}

// Unchanged stretches longer than twice the context are folded, keeping CONTEXT_LINES around each change.
export function foldUnchanged(lines: DiffLine[], context = CONTEXT_LINES): DiffBlock[] {
  const blocks: DiffBlock[] = [];
  const push = (kind: DiffBlock["kind"], part: DiffLine[]) => {
    if (part.length === 0) return;
    const last = blocks.at(-1);
    if (last && last.kind === kind && kind === "lines") last.lines.push(...part);
    else blocks.push({ kind, lines: part });
  };
  let index = 0;
  while (index < lines.length) {
    let end = index;
    const same = lines[index]?.kind === "same";
    while (end < lines.length && (lines[end]?.kind === "same") === same) end++;
    const run = lines.slice(index, end);
    if (!same) push("lines", run);
    else {
      const keepBefore = index === 0 ? 0 : context;
      const keepAfter = end === lines.length ? 0 : context;
      if (run.length > keepBefore + keepAfter + 1) {
        push("lines", run.slice(0, keepBefore));
        push("folded", run.slice(keepBefore, run.length - keepAfter));
        push("lines", run.slice(run.length - keepAfter));
      } else push("lines", run);
    }
    index = end;
  }
  return blocks;
}

"use client";

import { useMemo, useState } from "react";
import { type DiffLine, foldUnchanged, lineDiff } from "@/lib/skills/line-diff";

const SIGN = { added: "+", removed: "−", same: " " } as const;
const SPOKEN = { added: "added", removed: "removed", same: "" } as const;

function Line({ line }: { line: DiffLine }) {
  return (
    <li className={`diff-line diff-${line.kind}`}>
      <span className="diff-number" aria-hidden="true">
        {line.oldLine ?? ""}
      </span>
      <span className="diff-number" aria-hidden="true">
        {line.newLine ?? ""}
      </span>
      <span className="diff-sign" aria-hidden="true">
        {SIGN[line.kind]}
      </span>
      <span className="diff-text">
        {SPOKEN[line.kind] && <span className="visually-hidden">{SPOKEN[line.kind]}: </span>}
        {line.text || " "}
      </span>
    </li>
  );
}

type LineDiffViewProps = { before: string; after: string; label: string };

// A unified line diff: removed lines red, added lines green, long unchanged stretches folded.
export function LineDiffView({ before, after, label }: LineDiffViewProps) {
  const lines = useMemo(() => lineDiff(before, after), [before, after]);
  const blocks = useMemo(() => foldUnchanged(lines), [lines]);
  const [opened, setOpened] = useState<ReadonlySet<number>>(new Set());

  if (!lines.some((line) => line.kind !== "same")) {
    return <p className="muted">No differences in this file.</p>;
  }
  const added = lines.filter((line) => line.kind === "added").length;
  const removed = lines.filter((line) => line.kind === "removed").length;

  return (
    <div className="diff" data-testid="line-diff">
      <p className="diff-summary">
        <span className="diff-count-added">+{added}</span> <span className="diff-count-removed">−{removed}</span> lines
      </p>
      <ol className="diff-lines" aria-label={label}>
        {blocks.map((block, index) => {
          const key = `${block.kind}-${block.lines[0]?.oldLine ?? "x"}-${block.lines[0]?.newLine ?? "x"}`;
          if (block.kind === "lines" || opened.has(index)) {
            return block.lines.map((line) => (
              <Line key={`${key}-${line.oldLine ?? "n"}-${line.newLine ?? "o"}`} line={line} />
            ));
          }
          return (
            <li key={key} className="diff-fold">
              <button
                type="button"
                className="button button-small button-ghost"
                onClick={() => setOpened((current) => new Set(current).add(index))}
              >
                Show {block.lines.length} unchanged lines
              </button>
            </li>
          );
        })}
      </ol>
    </div>
  );
}

import { formatSize } from "@loadout/api/domain/skills/limits";
import { shortDigest } from "@/lib/format";
import type { FileChange } from "@/lib/skills/file-changes";

const LABEL = { added: "added since", removed: "removed since", changed: "changed since" } as const;

export function FileChangeList({ changes, version }: { changes: FileChange[]; version: number }) {
  if (changes.length === 0) return <p className="muted">The other files are the same as in version {version}.</p>;
  return (
    <ul className="file-changes" data-testid="file-changes">
      {changes.map((item) => (
        <li key={item.path} className={`file-change file-change-${item.change}`}>
          <code>{item.path}</code>{" "}
          <span className="file-change-kind">
            {LABEL[item.change]} v{version}
          </span>
          <span className="muted">
            {item.before && ` ${formatSize(item.before.size)} (${shortDigest(item.before.digest)})`}
            {item.before && item.after && " →"}
            {item.after && ` ${formatSize(item.after.size)} (${shortDigest(item.after.digest)})`}
          </span>
        </li>
      ))}
    </ul>
  );
}

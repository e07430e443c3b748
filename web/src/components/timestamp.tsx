import { formatDate, formatDateTime } from "@/lib/format";

// A date with its full time on hover, or a muted placeholder when there is none.
export function Timestamp({ iso, empty }: { iso: string | null; empty: string }) {
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatDate(iso)}
    </time>
  );
}

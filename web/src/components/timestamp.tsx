import { formatDate, formatDateTime } from "@/lib/format";

// A date with its full time on hover (or shown, where the time matters), or a muted placeholder.
export function Timestamp({ iso, empty, withTime = false }: { iso: string | null; empty: string; withTime?: boolean }) {
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {withTime ? formatDateTime(iso) : formatDate(iso)}
    </time>
  );
}

const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium" });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

export function formatDate(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateFormat.format(date);
}

export function formatDateTime(iso: string): string {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTimeFormat.format(date);
}

// Tokens are shown by their public prefix only; the API may or may not include `lo_` in it.
export function displayTokenPrefix(prefix: string): string {
  return `${prefix.startsWith("lo_") ? prefix : `lo_${prefix}`}…`;
}

// `sha256:9f86d0…` → `9f86d08`: enough to tell versions apart at a glance.
export function shortDigest(digest: string): string {
  return digest.replace(/^sha256:/, "").slice(0, 7);
}

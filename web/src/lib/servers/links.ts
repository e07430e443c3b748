// Console pages of the static export: one page per view, the server named in the query string.

export const SERVERS_HREF = "/servers/";

export function serverHref(slug: string): string {
  return `/servers/edit/?slug=${encodeURIComponent(slug)}`;
}

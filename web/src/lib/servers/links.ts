// Console pages of the static export: one page per view, the server named in the query string.

export const SERVERS_HREF = "/servers/";

// The link names its workspace, so a team server's link can be shared and opens in that team.
export function serverHref(ws: string, slug: string): string {
  return `/servers/edit/?slug=${encodeURIComponent(slug)}&ws=${encodeURIComponent(ws)}`;
}

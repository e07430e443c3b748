import { ApiError, type Session } from "../api";
import type { ItemKind } from "./local";

/** A skill or persona as `GET /v1/workspaces/{ws}/skills/{name}` gives it. */
export interface RemoteItem {
  kind: ItemKind;
  name: string;
  description: string;
  revision: number;
  version: number;
  state: "off" | "projects" | "global";
  document: string;
  files: Array<{ path: string; size: number; digest: string }>;
}

export interface RemoteSummary {
  kind: ItemKind;
  name: string;
  description: string;
  state: "off" | "projects" | "global";
  version: number;
}

export const itemPath = (ws: string, name: string) =>
  `/v1/workspaces/${encodeURIComponent(ws)}/skills/${encodeURIComponent(name)}`;

/** The item, or null when the workspace has none of that name. */
export async function fetchItem(session: Session, ws: string, name: string): Promise<RemoteItem | null> {
  try {
    return await session.request<RemoteItem>("GET", itemPath(ws, name));
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null;
    throw error;
  }
}

/** Every item of a workspace, page by page; with `project`, only those active in it. */
export async function listItems(
  session: Session,
  ws: string,
  query: { project?: string; state?: string } = {},
): Promise<RemoteSummary[]> {
  const items: RemoteSummary[] = [];
  let cursor: string | null = null;
  do {
    const params = new URLSearchParams({ limit: "200" });
    if (query.project) params.set("project", query.project);
    if (query.state) params.set("state", query.state);
    if (cursor) params.set("cursor", cursor);
    const page: { items: RemoteSummary[]; nextCursor: string | null } = await session.request(
      "GET",
      `/v1/workspaces/${encodeURIComponent(ws)}/skills?${params}`,
    );
    items.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor);
  return items;
}

export async function downloadFile(session: Session, ws: string, name: string, path: string): Promise<Uint8Array> {
  return session.download(`${itemPath(ws, name)}/file?path=${encodeURIComponent(path)}`);
}

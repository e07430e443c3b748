import { api } from "@/lib/api";
import type {
  ImportResult,
  ItemEdit,
  ItemView,
  Server,
  ServerEdit,
  ServerList,
  TestResult,
  ToolEdit,
  ToolList,
  ToolView,
} from "./types";

// Paths of the servers REST API for one workspace.

const base = (ws: string) => `/v1/workspaces/${encodeURIComponent(ws)}/servers`;
const serverPath = (ws: string, slug: string) => `${base(ws)}/${encodeURIComponent(slug)}`;

export const listServers = (ws: string, signal?: AbortSignal) =>
  api.get<ServerList>(base(ws), signal ? { signal } : undefined);

export const importServers = (ws: string, text: string) => api.post<ImportResult>(`${base(ws)}/import`, { text });

export const getServer = (ws: string, slug: string) => api.get<Server>(serverPath(ws, slug));

export const updateServer = (ws: string, slug: string, input: ServerEdit) =>
  api.patch<Server>(serverPath(ws, slug), input);

export const removeServer = (ws: string, slug: string, revision: number) =>
  api.delete(`${serverPath(ws, slug)}?revision=${revision}`);

export const testServer = (ws: string, slug: string) => api.post<TestResult>(`${serverPath(ws, slug)}/test`);

export const listTools = (ws: string, slug: string) => api.get<ToolList>(`${serverPath(ws, slug)}/tools`);

export const updateTool = (ws: string, slug: string, tool: string, input: ToolEdit) =>
  api.patch<ToolView>(`${serverPath(ws, slug)}/tools/${encodeURIComponent(tool)}`, input);

// Without a list, every tool waiting for review is approved.
export const approveTools = (ws: string, slug: string, tools?: string[]) =>
  api.post<{ tools: ToolView[] }>(`${serverPath(ws, slug)}/tools/approve`, tools ? { tools } : {});

export const listItems = (ws: string, slug: string) => api.get<{ items: ItemView[] }>(`${serverPath(ws, slug)}/items`);

export const updateItem = (ws: string, slug: string, input: ItemEdit) =>
  api.patch<ItemView>(`${serverPath(ws, slug)}/items`, input);

// Without a list, every resource, template and prompt waiting for review is approved.
export const approveItems = (ws: string, slug: string, items?: Pick<ItemView, "kind" | "key">[]) =>
  api.post<{ items: ItemView[] }>(`${serverPath(ws, slug)}/items/approve`, items ? { items } : {});

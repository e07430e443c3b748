import type { ConnectServerInput, ServerConnectionsView } from "@loadout/api/schemas/server-connections";
import { api } from "@/lib/api";

// A server's OAuth sign-in: its state for the caller, Connect (the browser then signs in at the
// server's authorization server and comes back) and Disconnect. No token ever reaches the console.

export type ServerConnections = ServerConnectionsView;
export type ConnectionState = ServerConnections["mine"];

const connectionPath = (ws: string, slug: string) =>
  `/v1/workspaces/${encodeURIComponent(ws)}/servers/${encodeURIComponent(slug)}`;

export const getConnections = (ws: string, slug: string) =>
  api.get<ServerConnections>(`${connectionPath(ws, slug)}/connection`);

export const startConnect = (ws: string, slug: string, input: ConnectServerInput) =>
  api.post<{ authorizationUrl: string }>(`${connectionPath(ws, slug)}/connect`, input);

export const disconnect = (ws: string, slug: string, shared: boolean) =>
  api.delete(`${connectionPath(ws, slug)}/connection${shared ? "?shared=1" : ""}`);

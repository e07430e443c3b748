import { api } from "@/lib/api";
import type { CreatedToken } from "@/lib/types";
import type { ConnectionList, CreateEndpointInput, Endpoint, EndpointList, ToolEstimates } from "./types";

// Paths of the MCP settings API (saved endpoints, recent connections) and the token a snippet needs.

export const listEndpoints = () => api.get<EndpointList>("/v1/endpoints");

export const createEndpoint = (input: CreateEndpointInput) => api.post<Endpoint>("/v1/endpoints", input);

export const deleteEndpoint = (id: string) => api.delete(`/v1/endpoints/${encodeURIComponent(id)}`);

export const listToolEstimates = () => api.get<ToolEstimates>("/v1/endpoints/tool-estimates");

export const listConnections = () => api.get<ConnectionList>("/v1/connections");

export const TOKEN_DAYS = 90;

// A token with only the mcp scope, named after the client and the day, so the Tokens page says what it is for.
export const createMcpToken = (clientName: string, day: Date = new Date()) =>
  api.post<CreatedToken>("/v1/tokens", {
    name: `${clientName} on ${isoDay(day)}`,
    scopes: ["mcp"],
    expiresInDays: TOKEN_DAYS,
  });

// The local calendar day as YYYY-MM-DD.
export function isoDay(date: Date): string {
  const pad = (value: number) => String(value).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

// Shapes of the MCP settings API (saved endpoints, recent connections), as the console reads them.

export type McpMode = "agent" | "plan" | "goal";

export type Endpoint = {
  id: string;
  name: string;
  project: string | null;
  mode: McpMode;
  searchFetch: boolean;
  lazyTools: boolean;
  path: string; // "/mcp/e/<id>", to append to this origin
  createdAt: string;
};

export type EndpointList = { endpoints: Endpoint[] };

export type CreateEndpointInput = {
  name: string;
  project?: string;
  mode?: McpMode;
  searchFetch?: boolean;
  lazyTools?: boolean;
};

export type Connection = {
  id: string;
  clientName: string;
  clientVersion: string;
  era: "modern" | "legacy";
  protocolVersion: string | null;
  project: string | null;
  mode: string;
  endpointId: string | null;
  tokenId: string | null;
  requests: number;
  firstSeenAt: string;
  lastSeenAt: string;
};

export type ConnectionList = { connections: Connection[] };

// A session's tools/list in estimated tokens (about four characters a token), full against lazy.
export type ListingEstimate = { full: number; lazy: number; tools: number };

export type ToolEstimates = { default: ListingEstimate; endpoints: (ListingEstimate & { id: string })[] };

import { z } from "@hono/zod-openapi";
import { Line, Timestamp } from "./common";

export const McpMode = z.enum(["agent", "plan", "goal"]);

export const CreateEndpointInput = z
  .strictObject({
    name: Line({ error: "name is required" })
      .trim()
      .min(1, "name is required")
      .max(64, "name must have at most 64 characters"),
    project: Line()
      .trim()
      .min(1)
      .max(1024)
      .optional()
      .openapi({ description: "The project path this endpoint pins (normalised)." }),
    mode: McpMode.optional().openapi({ description: "agent (default), plan or goal." }),
    searchFetch: z
      .boolean()
      .optional()
      .openapi({ description: "Offer ChatGPT's search and fetch tools on this endpoint." }),
    lazyTools: z.boolean().optional().openapi({
      description:
        "List find_tools and call_tool instead of every remote server tool (the same as ?tools=lazy), to save context.",
    }),
  })
  .openapi("CreateEndpointInput");
export type CreateEndpointInput = z.infer<typeof CreateEndpointInput>;

export const EndpointSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    project: z.string().nullable(),
    mode: McpMode,
    searchFetch: z.boolean(),
    lazyTools: z.boolean(),
    path: z
      .string()
      .openapi({ description: "The endpoint's path, to append to this server's origin.", example: "/mcp/e/mep_01…" }),
    createdAt: Timestamp,
  })
  .openapi("Endpoint");
export type EndpointView = z.infer<typeof EndpointSchema>;

export const ConnectionSchema = z
  .object({
    id: z.string(),
    clientName: z.string(),
    clientVersion: z.string(),
    era: z.enum(["modern", "legacy"]),
    protocolVersion: z.string().nullable(),
    project: z.string().nullable(),
    mode: z.string(),
    endpointId: z.string().nullable(),
    tokenId: z.string().nullable(),
    requests: z.number().int(),
    firstSeenAt: Timestamp,
    lastSeenAt: Timestamp,
  })
  .openapi("Connection");

export const EndpointParam = z.object({
  id: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "id", in: "path" } }),
});

const ListingEstimate = z
  .object({
    full: z.number().int().openapi({
      description:
        "Estimated tokens (about four characters a token) of the session's tools/list: Loadout's tools and every active remote server tool.",
    }),
    lazy: z.number().int().openapi({
      description: "The same for lazy mode: Loadout's tools, find_tools and call_tool.",
    }),
    tools: z.number().int().openapi({ description: "How many tools the full listing holds." }),
  })
  .openapi("ListingEstimate");

export const ToolEstimatesSchema = z
  .object({
    default: ListingEstimate.openapi({ description: "The MCP URL (`/mcp`) as is: agent mode, no project." }),
    endpoints: z.array(ListingEstimate.extend({ id: z.string() })).openapi({
      description: "Each saved endpoint's, in its mode, project and search and fetch setting.",
    }),
  })
  .openapi("ToolEstimates");
export type ToolEstimates = z.infer<typeof ToolEstimatesSchema>;
export type ListingEstimate = z.infer<typeof ListingEstimate>;

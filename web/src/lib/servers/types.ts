// Shapes of the servers REST API, as the console reads them. The server record and the edit input
// are the API's own zod types; the tool view mirrors the tools routes.
import type { ServerView, UpdateServerInput } from "@loadout/api/schemas/servers";

export type Server = ServerView;
export type ServerEdit = UpdateServerInput;
export type ServerStatus = Server["status"];
export type ServerTransport = Server["transport"];

export type ServerList = { servers: Server[] };

export type Placeholder = { header: string; placeholder: string };
export type ImportedServer = Server & { placeholders: Placeholder[] };
export type SkippedServer = { name: string; reason: string };
export type ImportResult = { imported: ImportedServer[]; skipped: SkippedServer[] };

export type PinState = "approved" | "new" | "changed";

export type ToolDefinitionView = {
  title: string | null;
  description: string;
  inputSchema: Record<string, unknown>;
};

export type ToolView = ToolDefinitionView & {
  name: string;
  exposedName: string;
  annotations: Record<string, unknown>;
  enabled: boolean;
  planSafeActions: string[];
  // The values of the tool's `action` enum; null when it has none (then plan-safe is all or nothing).
  actions: string[] | null;
  pin: PinState;
  // The definition the user approved last, to compare with; null for a tool never approved.
  approved: ToolDefinitionView | null;
};

export type ToolList = {
  tools: ToolView[];
  fetchedAt: string | null;
  // The server offers more tools than are served; the rest are left out.
  truncated?: boolean;
  // Tools that cannot be served (two names mapping to one), and why.
  refused?: { name: string; reason: string }[];
};

export type ToolEdit = { enabled?: boolean; planSafeActions?: string[] };

// `tools` is the refreshed tool list (older servers answered a bare array of upstream tools).
export type TestResult = { server: Server; tools: ToolList | unknown[]; error: string | null };

// Shapes of the servers REST API, as the console reads them: the API's own zod types.
import type {
  ServerItemView,
  ServerToolsView,
  ServerToolView,
  ServerView,
  UpdateServerInput,
  UpdateServerItemInput,
  UpdateServerToolInput,
} from "@loadout/api/schemas/servers";

export type Server = ServerView;
export type ServerEdit = UpdateServerInput;
export type ServerStatus = Server["status"];
export type ServerTransport = Server["transport"];

export type ServerList = { servers: Server[]; limits: { serversPerSession: number; toolsPerServer: number } };

export type Placeholder = { header: string; placeholder: string };
export type ImportedServer = Server;
export type SkippedServer = { name: string; reason: string };
export type ImportResult = { imported: ImportedServer[]; skipped: SkippedServer[] };

export type ToolView = ServerToolView;
export type ToolDefinitionView = NonNullable<ToolView["approved"]>;
export type ToolList = ServerToolsView;
export type ToolEdit = UpdateServerToolInput;

export type TestResult = { server: Server; tools: ToolList; error: string | null };

export type ItemView = ServerItemView;
export type ItemEdit = UpdateServerItemInput;

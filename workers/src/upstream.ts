import { Client, SSEClientTransport, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

export interface UpstreamConfig {
  url: string;
  transport: "streamable-http" | "sse";
  headers: Record<string, string>;
  /** The fetch that reaches the upstream: the SSRF-guarded one in production. */
  fetch: typeof fetch;
  connectTimeoutMs?: number;
}

export interface UpstreamTool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface UpstreamConnection {
  era: string;
  listTools(): Promise<UpstreamTool[]>;
  close(): Promise<void>;
}

/** Tools per server beyond which the rest are not offered (DESIGN.md, "Remote MCP servers"). */
export const MAX_TOOLS_PER_SERVER = 64;

const withTimeout = async <T>(work: Promise<T>, ms: number, what: string): Promise<T> => {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took longer than ${Math.round(ms / 1000)} s`)), ms);
      }),
    ]);
  } finally {
    if (timer) clearTimeout(timer);
  }
};

/**
 * Connects to an upstream MCP server with the official SDK client: the 2026-07-28 revision when
 * the server speaks it, else a 2025 session; legacy HTTP+SSE when the record says so.
 */
export async function connectUpstream(config: UpstreamConfig): Promise<UpstreamConnection> {
  const url = new URL(config.url);
  const requestInit = { headers: config.headers };
  const client = new Client({ name: "loadout", version: "0.1.0" }, { versionNegotiation: { mode: "auto" } });
  const transport =
    config.transport === "sse"
      ? new SSEClientTransport(url, { requestInit, fetch: config.fetch })
      : new StreamableHTTPClientTransport(url, { requestInit, fetch: config.fetch });
  await withTimeout(client.connect(transport), config.connectTimeoutMs ?? 10_000, "connecting");
  return {
    era: client.getProtocolEra?.() ?? "legacy",
    async listTools() {
      const tools: UpstreamTool[] = [];
      let cursor: string | undefined;
      do {
        const page = await withTimeout(
          client.listTools(cursor ? { cursor } : {}),
          config.connectTimeoutMs ?? 10_000,
          "listing tools",
        );
        for (const tool of page.tools) if (tools.length < MAX_TOOLS_PER_SERVER) tools.push(tool as UpstreamTool);
        cursor = page.nextCursor;
      } while (cursor && tools.length < MAX_TOOLS_PER_SERVER);
      return tools;
    },
    close: () => client.close(),
  };
}

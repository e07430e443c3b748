/**
 * The upstream proxy: MCP client connections to users' remote servers, the tool-list cache,
 * upstream auth, timeouts and result bounds. The api reaches it only through this seam, so the
 * same code runs in-process on Node and behind a service binding with Durable Objects on Workers.
 * The implementation lands with the remote-servers work; until then nothing calls it.
 */
export interface UpstreamCallResult {
  content: unknown[];
  isError: boolean;
}

export interface UpstreamProxy {
  listTools(serverId: string): Promise<unknown[]>;
  callTool(
    serverId: string,
    tool: string,
    args: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<UpstreamCallResult>;
}

/** A 2026-07-28 MCP request sent by hand over HTTP: its headers and envelope, as the SDK client sends them. */

export const REVISION = "2026-07-28";

/** The `_meta` envelope of a request from a client that declares no capabilities. */
export const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": REVISION,
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** The headers of a POST to /mcp: the token, the revision, the method and, where the spec asks, the name. */
export function mcpHeaders(token: string, method: string, name?: string): Record<string, string> {
  return {
    authorization: `Bearer ${token}`,
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": REVISION,
    "mcp-method": method,
    ...(name ? { "mcp-name": name } : {}),
  };
}

/** The two protocol eras the SDK v2 client speaks, as `describe.each`/`it.each` take them: its options for each. */
export const ERAS = [
  ["2026-07-28", { versionNegotiation: { mode: "auto" as const } }],
  ["2025 handshake", {}],
] as const;

/**
 * A 2025-era client's `initialize`, sent by hand to `url` (its answer carries Loadout's session
 * id), through `send` (fetch, or a Workers topology's), on `protocolVersion`.
 */
export function legacyInitialize(
  url: string,
  token: string,
  clientName = "legacy",
  send: (url: string, init: RequestInit) => Promise<Response> = fetch,
  protocolVersion = "2025-11-25",
): Promise<Response> {
  return send(url, {
    method: "POST",
    headers: {
      authorization: `Bearer ${token}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion, capabilities: {}, clientInfo: { name: clientName, version: "1" } },
    }),
  });
}

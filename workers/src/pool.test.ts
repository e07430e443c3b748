import { describe, expect, it } from "vitest";
import { statelessCallBody } from "./pool";

describe("statelessCallBody", () => {
  const envelope = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientInfo": { name: "loadout", version: "0.1.0" },
    "io.modelcontextprotocol/clientCapabilities": {},
  };
  const asObject = (id: string, name: string, args?: Record<string, unknown>) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name, ...(args ? { arguments: args } : {}), _meta: envelope },
    });

  it.each([
    ["no arguments", "loadout-1", "echo", undefined],
    ["arguments", "loadout-2", "search", { query: 'a "quoted" ünïcode ✓ query', limit: 5, nested: { a: [1, null] } }],
    ["empty arguments", "loadout-3", "list", {}],
    ["a name that needs escaping", "loadout-4", 'odd"name\\', { x: 1 }],
  ])("is JSON.stringify's encoding of the call, with %s", (_, id, name, args) => {
    expect(statelessCallBody(id, name, args)).toBe(asObject(id, name, args));
  });
});

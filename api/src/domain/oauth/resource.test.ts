import { describe, expect, it } from "vitest";
import { canonicalResource } from "./resource";

const issuer = "https://loadout.example";

describe("canonicalResource", () => {
  it("accepts the MCP URL, saved endpoints and single-server URLs, canonically spelled", () => {
    expect(canonicalResource("https://loadout.example/mcp", issuer)).toEqual({
      resource: "https://loadout.example/mcp",
      kind: "mcp",
    });
    expect(canonicalResource("HTTPS://Loadout.Example/mcp/", issuer)).toEqual({
      resource: "https://loadout.example/mcp",
      kind: "mcp",
    });
    expect(canonicalResource("https://loadout.example/mcp/e/mep_01abc", issuer)).toEqual({
      resource: "https://loadout.example/mcp/e/mep_01abc",
      kind: "mcp",
    });
    expect(canonicalResource("https://loadout.example/mcp/s/team-a/github", issuer)).toEqual({
      resource: "https://loadout.example/mcp/s/team-a/github",
      kind: "mcp",
    });
  });

  it("accepts the REST API (/v1) as a resource of its own kind", () => {
    expect(canonicalResource("https://loadout.example/v1", issuer)).toEqual({
      resource: "https://loadout.example/v1",
      kind: "api",
    });
    expect(canonicalResource("https://loadout.example/v1/", issuer)).toEqual({
      resource: "https://loadout.example/v1",
      kind: "api",
    });
    expect(canonicalResource("https://evil.example/v1", issuer)).toHaveProperty("problem");
  });

  it("refuses other hosts, other paths, queries and fragments", () => {
    for (const raw of [
      "https://evil.example/mcp",
      "http://loadout.example/mcp",
      "https://loadout.example/v1/me",
      "https://loadout.example/mcp/../v1",
      "https://loadout.example/mcp?project=x",
      "https://loadout.example/mcp#x",
      "not a url",
    ]) {
      expect(canonicalResource(raw, issuer), raw).toHaveProperty("problem");
    }
  });
});

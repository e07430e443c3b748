import { describe, expect, it } from "vitest";
import { authorizationServerProblem, endpointProblem, resourceMatches } from "./metadata";

const good = {
  issuer: "https://auth.example.com",
  authorization_endpoint: "https://auth.example.com/authorize",
  token_endpoint: "https://auth.example.com/token",
  response_types_supported: ["code"],
  code_challenge_methods_supported: ["S256"],
};

describe("authorizationServerProblem", () => {
  it("accepts the code flow with S256", () => {
    expect(authorizationServerProblem(good, false)).toBeNull();
  });
  it("refuses a server that does not list its PKCE methods (downgrade)", () => {
    const { code_challenge_methods_supported: _, ...without } = good;
    expect(authorizationServerProblem(without, false)).toMatch(/code_challenge_methods_supported/);
  });
  it("refuses a server offering only plain PKCE", () => {
    expect(authorizationServerProblem({ ...good, code_challenge_methods_supported: ["plain"] }, false)).toMatch(
      /S256 \(only plain\)/,
    );
  });
  it("refuses http endpoints, except on loopback where loopback upstreams are allowed", () => {
    const local = { ...good, token_endpoint: "http://127.0.0.1:9/token" };
    expect(authorizationServerProblem(local, false)).toMatch(/token_endpoint .* is not https/);
    expect(authorizationServerProblem(local, true)).toBeNull();
    expect(endpointProblem("http://10.0.0.1/token", "token_endpoint", true)).toMatch(/not https/);
  });
});

describe("resourceMatches", () => {
  it("takes the server's own URL or a parent path on the same origin", () => {
    expect(resourceMatches("https://mcp.example.com/mcp", "https://mcp.example.com/mcp")).toBe(true);
    expect(resourceMatches("https://mcp.example.com", "https://mcp.example.com/mcp")).toBe(true);
    expect(resourceMatches("https://mcp.example.com/mcp", "https://mcp.example.com/mcp/s/me/x")).toBe(true);
  });
  it("refuses another origin or a sibling path", () => {
    expect(resourceMatches("https://evil.example.com/mcp", "https://mcp.example.com/mcp")).toBe(false);
    expect(resourceMatches("https://mcp.example.com/other", "https://mcp.example.com/mcp")).toBe(false);
    expect(resourceMatches("https://mcp.example.com/mc", "https://mcp.example.com/mcp")).toBe(false);
    expect(resourceMatches("not a url", "https://mcp.example.com/mcp")).toBe(false);
  });
});

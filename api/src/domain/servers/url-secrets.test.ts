import { describe, expect, it } from "vitest";
import { maskUrlSecrets, urlSecretValues } from "./url-secrets";

describe("maskUrlSecrets", () => {
  it.each([
    ["https://mcp.linear.app/sse", "https://mcp.linear.app/sse"],
    ["https://api.githubcopilot.com/mcp/", "https://api.githubcopilot.com/mcp/"],
    [
      "https://server.smithery.ai/@acme/tool/mcp?api_key=abc123def456&profile=work",
      "https://server.smithery.ai/@acme/tool/mcp?api_key=••••&profile=work",
    ],
    ["https://example.com/mcp?token=t0k3n", "https://example.com/mcp?token=••••"],
    ["https://example.com/mcp?apiKey=xyz", "https://example.com/mcp?apiKey=••••"],
    [
      "https://example.com/mcp?access_token=xyz&x-api-key=k",
      "https://example.com/mcp?access_token=••••&x-api-key=••••",
    ],
    ["https://example.com/mcp?keyword=search&monkey=1", "https://example.com/mcp?keyword=search&monkey=1"],
    ["https://actions.zapier.com/mcp/sk-ak-7f3a9c2e81b44d0b9e6f5a1c/sse", "https://actions.zapier.com/mcp/••••/sse"],
    [
      "https://example.com/v1/organizations/customer-success-team/mcp",
      "https://example.com/v1/organizations/customer-success-team/mcp",
    ],
    ["https://example.com/mcp/2024-11-05-release-notes", "https://example.com/mcp/2024-11-05-release-notes"],
    ["not a url", "not a url"],
  ])("%s → %s", (url, masked) => expect(maskUrlSecrets(url)).toBe(masked));
});

describe("urlSecretValues", () => {
  it("lists what the mask hides", () => {
    expect(urlSecretValues("https://x.example/mcp/sk-ak-7f3a9c2e81b44d0b9e6f5a1c/sse?api_key=a%2Fb12&q=1")).toEqual([
      "sk-ak-7f3a9c2e81b44d0b9e6f5a1c",
      "a/b12",
      "a%2Fb12",
    ]);
    expect(urlSecretValues("https://mcp.linear.app/sse")).toEqual([]);
  });
});

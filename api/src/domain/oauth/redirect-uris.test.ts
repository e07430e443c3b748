import { describe, expect, it } from "vitest";
import { redirectUriProblem } from "./redirect-uris";

describe("redirectUriProblem", () => {
  it("accepts https for every client, and loopback http for native clients", () => {
    expect(redirectUriProblem("https://claude.ai/api/mcp/auth_callback", "web")).toBeNull();
    expect(redirectUriProblem("https://chatgpt.com/connector/oauth/abc", "web")).toBeNull();
    expect(redirectUriProblem("http://127.0.0.1:33418/callback", "native")).toBeNull();
    expect(redirectUriProblem("http://[::1]:8080/cb", "native")).toBeNull();
    expect(redirectUriProblem("http://localhost:8080/cb", "native")).toBeNull();
  });

  it("refuses plain http, loopback http for web clients, fragments, credentials and other schemes", () => {
    expect(redirectUriProblem("http://evil.example/cb", "native")).toMatch(/https/);
    expect(redirectUriProblem("http://127.0.0.1:33418/callback", "web")).toMatch(/native/);
    expect(redirectUriProblem("https://claude.ai/cb#x", "web")).toMatch(/fragment/);
    expect(redirectUriProblem("https://user:pw@claude.ai/cb", "web")).toMatch(/credentials/);
    expect(redirectUriProblem("javascript:alert(1)", "web")).toMatch(/https/);
    expect(redirectUriProblem("/relative", "web")).toMatch(/absolute/);
  });
});

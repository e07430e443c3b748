import { describe, expect, it } from "vitest";
import { isApiPath } from "./api-paths";

describe("isApiPath", () => {
  it("takes each API prefix, bare and with a path below it", () => {
    for (const path of [
      "/v1",
      "/v1/me",
      "/v1/nowhere",
      "/mcp",
      "/mcp/s/me/x",
      "/oauth/authorize",
      "/.well-known/oauth-authorization-server",
      "/healthz",
    ])
      expect(isApiPath(path), path).toBe(true);
  });

  it("leaves the console's paths, and names that only start like a prefix, to the console", () => {
    for (const path of [
      "/",
      "/skills/",
      "/no-such-page",
      "/v1x",
      "/v10/me",
      "/mcpserver",
      "/oauthx",
      "/healthzz",
      "/invite/",
    ])
      expect(isApiPath(path), path).toBe(false);
  });
});

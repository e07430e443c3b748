import { describe, expect, it } from "vitest";
import { authorizationResponseUrl } from "./redirect";

describe("authorizationResponseUrl", () => {
  it("adds the parameters to the redirect URI, keeping its own query", () => {
    const url = new URL(
      authorizationResponseUrl("https://claude.ai/api/mcp/auth_callback?x=1", {
        code: "loc_abc",
        state: "s t&x",
        iss: "https://loadout.example",
        error: undefined,
      }),
    );
    expect(url.origin + url.pathname).toBe("https://claude.ai/api/mcp/auth_callback");
    expect(url.searchParams.get("x")).toBe("1");
    expect(url.searchParams.get("code")).toBe("loc_abc");
    expect(url.searchParams.get("state")).toBe("s t&x");
    expect(url.searchParams.get("iss")).toBe("https://loadout.example");
    expect(url.searchParams.has("error")).toBe(false);
  });
});

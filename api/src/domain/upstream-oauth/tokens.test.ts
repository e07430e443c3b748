import { describe, expect, it } from "vitest";
import { expiryOf, lacksScope, needsRefresh, ownerOf, scopeUnion } from "./tokens";

const now = new Date("2026-12-02T08:00:00Z");

describe("token lifetimes", () => {
  it("refreshes within a minute of expiry, never a token without one", () => {
    expect(needsRefresh(new Date(now.getTime() + 30_000), now)).toBe(true);
    expect(needsRefresh(new Date(now.getTime() + 120_000), now)).toBe(false);
    expect(needsRefresh(null, now)).toBe(false);
  });
  it("reads expires_in in seconds", () => {
    expect(expiryOf(3600, now)?.toISOString()).toBe("2026-12-02T09:00:00.000Z");
    expect(expiryOf(undefined, now)).toBeNull();
    expect(expiryOf(-5, now)).toBeNull();
  });
});

describe("scopes", () => {
  it("unions scope strings and tells a missing one", () => {
    expect(scopeUnion("a b", undefined, "b c")).toBe("a b c");
    expect(scopeUnion(null, "")).toBeNull();
    expect(lacksScope("a b", "b")).toBe(false);
    expect(lacksScope("a", "a admin")).toBe(true);
    expect(lacksScope(null, "a")).toBe(true);
  });
  it("names the owner of a call's credentials", () => {
    expect(ownerOf("shared", "usr_1")).toBe("shared");
    expect(ownerOf("per-user", "usr_1")).toBe("usr_1");
  });
});

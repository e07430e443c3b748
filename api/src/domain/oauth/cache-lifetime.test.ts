import { describe, expect, it } from "vitest";
import { CACHE_DEFAULT_SECONDS, CACHE_MAX_SECONDS, cacheLifetimeSeconds } from "./cache-lifetime";

const now = new Date("2026-11-29T12:00:00Z");

describe("cacheLifetimeSeconds", () => {
  it("follows max-age, then Expires, then the default", () => {
    expect(cacheLifetimeSeconds("public, max-age=600", null, now)).toBe(600);
    expect(cacheLifetimeSeconds("s-maxage=900", null, now)).toBe(900);
    expect(cacheLifetimeSeconds(null, "Sun, 29 Nov 2026 12:30:00 GMT", now)).toBe(1800);
    expect(cacheLifetimeSeconds(null, null, now)).toBe(CACHE_DEFAULT_SECONDS);
  });

  it("does not cache no-store, no-cache, max-age=0 or a past Expires", () => {
    expect(cacheLifetimeSeconds("no-store", null, now)).toBe(0);
    expect(cacheLifetimeSeconds("no-cache, max-age=600", null, now)).toBe(0);
    expect(cacheLifetimeSeconds("max-age=0", null, now)).toBe(0);
    expect(cacheLifetimeSeconds(null, "Sun, 29 Nov 2026 11:00:00 GMT", now)).toBe(0);
    expect(cacheLifetimeSeconds(null, "garbage", now)).toBe(0);
  });

  it("clamps long and short lifetimes", () => {
    expect(cacheLifetimeSeconds("max-age=31536000", null, now)).toBe(CACHE_MAX_SECONDS);
    expect(cacheLifetimeSeconds("max-age=5", null, now)).toBe(60);
  });
});

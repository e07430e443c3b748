import { describe, expect, it } from "vitest";
import { CatalogCache } from "./definitions";

describe("CatalogCache", () => {
  it("answers only under the stamp it was stored with, and forgets the least recently used", () => {
    const cache = new CatalogCache<string>(2);
    cache.set("a", "v1", "A");
    expect(cache.get("a", "v1")).toBe("A");
    expect(cache.get("a", "v2")).toBeUndefined();
    cache.set("b", "v1", "B");
    cache.get("a", "v1");
    cache.set("c", "v1", "C");
    expect(cache.get("b", "v1")).toBeUndefined();
    expect(cache.get("a", "v1")).toBe("A");
    expect(cache.get("c", "v1")).toBe("C");
  });
});

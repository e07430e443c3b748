import { describe, expect, it } from "vitest";
import { hasPrefix, idFloor, newId } from "./ids";

describe("newId", () => {
  it("prefixes the kind and has 26 base32 characters", () => {
    const id = newId("user");
    expect(id).toMatch(/^usr_[0-9a-hjkmnp-tv-z]{26}$/);
    expect(hasPrefix(id, "user")).toBe(true);
    expect(hasPrefix(id, "token")).toBe(false);
  });

  it("sorts by creation time", () => {
    const a = newId("event", 1_700_000_000_000);
    const b = newId("event", 1_700_000_000_001);
    const c = newId("event", 1_800_000_000_000);
    expect([c, b, a].sort()).toEqual([a, b, c]);
  });

  it("does not repeat", () => {
    const ids = new Set(Array.from({ length: 10_000 }, () => newId("token")));
    expect(ids.size).toBe(10_000);
  });
});

describe("idFloor", () => {
  it("bounds the ids of a time range", () => {
    const t = 1_764_000_000_000;
    const at = newId("event", t);
    expect(idFloor("event", t) <= at).toBe(true);
    expect(idFloor("event", t + 1) > at).toBe(true);
    expect(idFloor("event", t - 1) < at).toBe(true);
    expect(newId("event", t - 1) < idFloor("event", t)).toBe(true);
  });
});

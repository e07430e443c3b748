import { describe, expect, it } from "vitest";
import { nodeSha256Hex } from "./node-sha256";
import {
  csrfTokenFor,
  deriveKey,
  hashSecret,
  looksLikeApiToken,
  newApiTokenSecret,
  randomBase62,
  safeEqual,
  useNativeSha256,
} from "./secrets";

describe("secrets", () => {
  it("makes lo_ tokens of a fixed shape that the shape check accepts", () => {
    const secret = newApiTokenSecret();
    expect(secret).toMatch(/^lo_[0-9A-Za-z]{43}$/);
    expect(looksLikeApiToken(secret)).toBe(true);
    expect(looksLikeApiToken(`${secret}x`)).toBe(false);
    expect(looksLikeApiToken(secret.replace("lo_", "xx_"))).toBe(false);
  });

  it("spreads base62 characters evenly", () => {
    const counts = new Map<string, number>();
    for (const ch of randomBase62(62_000)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    expect(counts.size).toBe(62);
    for (const n of counts.values()) expect(n).toBeGreaterThan(700);
  });

  it("hashes deterministically and derives distinct keys per purpose", () => {
    expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const a = deriveKey("k".repeat(32), "csrf");
    const b = deriveKey("k".repeat(32), "other");
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(csrfTokenFor(a, "ses_1")).toBe(csrfTokenFor(a, "ses_1"));
    expect(csrfTokenFor(a, "ses_1")).not.toBe(csrfTokenFor(a, "ses_2"));
    expect(safeEqual("abc", "abc")).toBe(true);
    expect(safeEqual("abc", "abd")).toBe(false);
  });

  it("hashes the same with the host's native SHA-256 as with the portable one", () => {
    const samples = ["abc", "", newApiTokenSecret(), "loa_ünïcødé ✓ 🔑", "x".repeat(10_000)];
    const portable = samples.map(hashSecret);
    expect(portable[0]).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(samples.map(nodeSha256Hex)).toEqual(portable);
    const portableHex = useNativeSha256(nodeSha256Hex);
    try {
      expect(samples.map(hashSecret)).toEqual(portable);
    } finally {
      useNativeSha256(portableHex);
    }
    expect(samples.map(hashSecret)).toEqual(portable);
  });
});

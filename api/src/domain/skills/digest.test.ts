import { describe, expect, it } from "vitest";
import { digestOf } from "./digest";

const utf8 = (text: string) => new TextEncoder().encode(text);

describe("digestOf", () => {
  it.each([
    ["", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"],
    [
      "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
    ],
  ])("sha256(%j)", (text, hex) => {
    expect(digestOf(utf8(text))).toBe(`sha256:${hex}`);
  });

  it("hashes raw bytes, not text: a BOM or CRLF changes the digest", () => {
    expect(digestOf(utf8("\uFEFFabc"))).not.toBe(digestOf(utf8("abc")));
    expect(digestOf(utf8("a\r\n"))).not.toBe(digestOf(utf8("a\n")));
    expect(digestOf(new Uint8Array([0, 255]))).toMatch(/^sha256:[0-9a-f]{64}$/);
  });
});

describe("digestOfAsync", () => {
  it("equals the synchronous digest", async () => {
    const { digestOfAsync } = await import("./digest");
    for (const text of ["", "abc", "é".repeat(10_000)]) {
      const bytes = new TextEncoder().encode(text);
      expect(await digestOfAsync(bytes)).toBe(digestOf(bytes));
    }
  });
});

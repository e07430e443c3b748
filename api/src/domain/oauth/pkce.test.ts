import { describe, expect, it } from "vitest";
import { isValidCodeChallenge, isValidCodeVerifier, s256, verifierMatches } from "./pkce";

describe("PKCE S256", () => {
  it("computes base64url(SHA-256(verifier)) without padding (checked against node:crypto)", () => {
    expect(s256("dBjftJeZ4CVP-mJ92K1PQNXKwEJpbE8QXUepAWPfUD0")).toBe("NISxpJQiHnR1lzrLhQk7y7yOlmVLBnaGd-xYcguTb54");
  });

  it("matches the right verifier only", () => {
    const challenge = "NISxpJQiHnR1lzrLhQk7y7yOlmVLBnaGd-xYcguTb54";
    expect(verifierMatches("dBjftJeZ4CVP-mJ92K1PQNXKwEJpbE8QXUepAWPfUD0", challenge)).toBe(true);
    expect(verifierMatches("dBjftJeZ4CVP-mJ92K1PQNXKwEJpbE8QXUepAWPfUD1", challenge)).toBe(false);
    // `plain`: the challenge itself as verifier must not pass.
    expect(verifierMatches(challenge, challenge)).toBe(false);
  });

  it("checks the shapes of verifiers and challenges", () => {
    expect(isValidCodeVerifier("short")).toBe(false);
    expect(isValidCodeVerifier("a".repeat(43))).toBe(true);
    expect(isValidCodeVerifier("a".repeat(129))).toBe(false);
    expect(isValidCodeVerifier(`${"a".repeat(42)}+`)).toBe(false);
    expect(isValidCodeChallenge("NISxpJQiHnR1lzrLhQk7y7yOlmVLBnaGd-xYcguTb54")).toBe(true);
    expect(isValidCodeChallenge("NISxpJQiHnR1lzrLhQk7y7yOlmVLBnaGd-xYcguTb54=")).toBe(false);
  });
});

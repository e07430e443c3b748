import { describe, expect, it } from "vitest";
import { nodeScrypt } from "./node-scrypt";
import { createPasswordHasher, nobleScrypt, OWASP_SCRYPT } from "./password";

describe("password hashing", () => {
  const hasher = createPasswordHasher();

  it("stores the scheme and OWASP parameters with each hash", async () => {
    const stored = await hasher.hash("correct horse battery");
    expect(stored).toMatch(/^scrypt\$ln=14,r=8,p=5\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(OWASP_SCRYPT).toEqual({ N: 16384, r: 8, p: 5, dkLen: 32 });
  });

  it("verifies the right password and refuses a wrong one", async () => {
    const stored = await hasher.hash("correct horse battery");
    expect(await hasher.verify("correct horse battery", stored)).toEqual({ ok: true, needsRehash: false });
    expect((await hasher.verify("correct horse batterx", stored)).ok).toBe(false);
    expect((await hasher.verify("x", "not-a-hash")).ok).toBe(false);
  });

  it("gives the same bytes with Node's native scrypt and the portable one", async () => {
    const salt = new Uint8Array(16).fill(7);
    const pw = new TextEncoder().encode("pässwörd");
    const [a, b] = await Promise.all([nobleScrypt(pw, salt, OWASP_SCRYPT), nodeScrypt(pw, salt, OWASP_SCRYPT)]);
    expect(Buffer.from(a).toString("hex")).toBe(Buffer.from(b).toString("hex"));
    const viaNode = createPasswordHasher(nodeScrypt);
    expect((await hasher.verify("pässwörd", await viaNode.hash("pässwörd"))).ok).toBe(true);
  });

  it("verifies older, weaker hashes and asks for a rehash", async () => {
    const weak = createPasswordHasher(nobleScrypt, { N: 1024, r: 8, p: 1, dkLen: 32 });
    const stored = await weak.hash("legacy password");
    expect(stored.startsWith("scrypt$ln=10,r=8,p=1$")).toBe(true);
    expect(await hasher.verify("legacy password", stored)).toEqual({ ok: true, needsRehash: true });
  });
});

import { describe, expect, it } from "vitest";
import { createSecretBox, deploymentKeys, SecretBoxError, sealedKeyId } from "./secret-box";

const KEY_A = { id: "a", secret: "first-root-secret-key-0123-aaaaaaaaaaaa" };
const KEY_B = { id: "b", secret: "second-root-secret-key-456-bbbbbbbbbbbb" };
const AD = "srv_123:header:Authorization";
const PLAINTEXT = "Bearer sk-live-4f9a8c7e1d2b3a4f5e6d7c8b9a0f1e2d";

/** The error `open` throws, checked to reveal neither the plaintext nor any key. */
async function openError(promise: Promise<string>): Promise<SecretBoxError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SecretBoxError);
  if (!(error instanceof SecretBoxError)) throw new Error("expected a SecretBoxError");
  for (const text of [error.message, String(error), error.stack ?? ""]) {
    expect(text).not.toContain(PLAINTEXT);
    expect(text).not.toContain("sk-live");
    expect(text).not.toContain(KEY_A.secret);
    expect(text).not.toContain(KEY_B.secret);
  }
  return error;
}

/** Changes one base64url character of segment `index` of a sealed value. */
function flip(sealed: string, index: number): string {
  const parts = sealed.split(".");
  const part = parts[index] ?? "";
  parts[index] = (part[0] === "A" ? "B" : "A") + part.slice(1);
  return parts.join(".");
}

describe("createSecretBox", () => {
  it.each([
    ["ascii", PLAINTEXT],
    ["empty", ""],
    ["unicode", "clé secrète 🔑 — 秘密"],
    ["long", "x".repeat(10_000)],
  ])("round-trips %s values", async (_case, plaintext) => {
    const box = createSecretBox([KEY_A]);
    const sealed = await box.seal(plaintext, AD);
    expect(sealed).toMatch(/^v1\.a\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]+$/);
    expect(await box.open(sealed, AD)).toBe(plaintext);
  });

  it("uses a fresh IV for every seal and never shows the plaintext", async () => {
    const box = createSecretBox([KEY_A]);
    const first = await box.seal(PLAINTEXT, AD);
    const second = await box.seal(PLAINTEXT, AD);
    expect(first).not.toBe(second);
    expect(first.split(".")[2]).not.toBe(second.split(".")[2]);
    expect(first).not.toContain("sk-live");
  });

  it("rotates: new seals use the first key, older keys still open old values", async () => {
    const before = createSecretBox([KEY_A]);
    const old = await before.seal(PLAINTEXT, AD);
    const after = createSecretBox([KEY_B, KEY_A]);
    expect(await after.open(old, AD)).toBe(PLAINTEXT);
    const fresh = await after.seal(PLAINTEXT, AD);
    expect(fresh.startsWith("v1.b.")).toBe(true);
    expect(await after.open(fresh, AD)).toBe(PLAINTEXT);
    expect((await openError(before.open(fresh, AD))).message).toContain('key "b", which this deployment no longer has');
    const retired = createSecretBox([KEY_B]);
    expect((await openError(retired.open(old, AD))).message).toContain('key "a", which this deployment no longer has');
  });

  it.each<[string, (sealed: string) => string, string]>([
    ["a changed ciphertext", (s) => flip(s, 3), "could not be decrypted"],
    ["a changed IV", (s) => flip(s, 2), "could not be decrypted"],
    ["a truncated tag", (s) => s.slice(0, -4), "could not be decrypted"],
    ["a relabelled key id", (s) => s.replace("v1.a.", "v1.b."), "could not be decrypted"],
    ["an unknown key id", (s) => s.replace("v1.a.", "v1.zz."), 'key "zz"'],
    ["another version", (s) => s.replace("v1.", "v2."), "malformed"],
    ["a missing segment", (s) => s.split(".").slice(0, 3).join("."), "malformed"],
    ["an extra segment", (s) => `${s}.x`, "malformed"],
    ["padding", (s) => `${s}=`, "malformed"],
    ["a short IV", (s) => s.replace(/^(v1\.a\.)[^.]{4}/, "$1"), "malformed"],
    ["a too-short ciphertext", (s) => s.replace(/[^.]+$/, "AAAA"), "malformed"],
    ["an empty string", () => "", "malformed"],
    ["a plaintext stored by mistake", () => PLAINTEXT, "malformed"],
  ])("refuses %s", async (_case, change, message) => {
    const box = createSecretBox([KEY_A, KEY_B]);
    const sealed = change(await box.seal(PLAINTEXT, AD));
    expect((await openError(box.open(sealed, AD))).message).toContain(message);
  });

  it("binds a value to its record: another associated data does not open it", async () => {
    const box = createSecretBox([KEY_A]);
    const sealed = await box.seal(PLAINTEXT, AD);
    for (const other of ["srv_124:header:Authorization", "srv_123:header:X-Api-Key", "", `${AD} `]) {
      expect((await openError(box.open(sealed, other))).message).toContain("could not be decrypted");
    }
  });

  it("refuses a value sealed with another root key or for another purpose", async () => {
    const sealed = await createSecretBox([KEY_A]).seal(PLAINTEXT, AD);
    const impostor = createSecretBox([{ id: "a", secret: KEY_B.secret }]);
    expect((await openError(impostor.open(sealed, AD))).message).toContain("could not be decrypted");
    const otherPurpose = createSecretBox([KEY_A], { purpose: "oauth-credentials" });
    expect((await openError(otherPurpose.open(sealed, AD))).message).toContain("could not be decrypted");
  });

  it.each<[string, { id: string; secret: string }[], string]>([
    ["no keys", [], "at least one key"],
    ["a key id with a dot", [{ id: "a.b", secret: KEY_A.secret }], "invalid"],
    ["an empty key id", [{ id: "", secret: KEY_A.secret }], "invalid"],
    ["a duplicate key id", [KEY_A, { id: "a", secret: KEY_B.secret }], "listed twice"],
    ["a short secret", [{ id: "a", secret: "short-secret-value" }], "too short"],
  ])("refuses to start with %s, without echoing a secret", (_case, keys, message) => {
    expect(() => createSecretBox(keys)).toThrow(message);
    try {
      createSecretBox(keys);
    } catch (error) {
      expect(String(error)).not.toContain(KEY_A.secret);
      expect(String(error)).not.toContain(KEY_B.secret);
      expect(String(error)).not.toContain("short-secret-value");
    }
  });
});

describe("deploymentKeys", () => {
  it("puts LOADOUT_SECRET_KEY first, then the previous keys, each once, with ids derived from them", () => {
    const keys = deploymentKeys(KEY_B.secret, [KEY_A.secret, KEY_B.secret, KEY_A.secret]);
    expect(keys.map((k) => k.secret)).toEqual([KEY_B.secret, KEY_A.secret]);
    // The same key gets the same id on every instance; different keys get different ids.
    expect(deploymentKeys(KEY_A.secret)[0]?.id).toBe(keys[1]?.id);
    expect(keys[0]?.id).toMatch(/^k[0-9a-f]{8}$/);
    expect(keys[0]?.id).not.toBe(keys[1]?.id);
    expect(keys.map((k) => k.id).join()).not.toContain(KEY_A.secret.slice(0, 8));
  });

  it("makes a box that seals with the current key and opens what a previous one sealed", async () => {
    const before = createSecretBox(deploymentKeys(KEY_A.secret));
    const old = await before.seal(PLAINTEXT, AD);
    const rotated = createSecretBox(deploymentKeys(KEY_B.secret, [KEY_A.secret]));
    expect(await rotated.open(old, AD)).toBe(PLAINTEXT);
    expect(sealedKeyId(old)).toBe(before.keyId);
    expect(sealedKeyId(await rotated.seal(PLAINTEXT, AD))).toBe(rotated.keyId);
    expect(rotated.keyId).not.toBe(before.keyId);
  });
});

describe("sealedKeyId", () => {
  it.each([
    ["v1.k1a2b3c4d.aaaa.bbbb", "k1a2b3c4d"],
    ["v2.k1a2b3c4d.aaaa.bbbb", null],
    ["v1..aaaa.bbbb", null],
    ["v1.bad key.aaaa.bbbb", null],
    ["Bearer plain text", null],
    ["", null],
  ])("reads %j as %j", (sealed, id) => {
    expect(sealedKeyId(sealed)).toBe(id);
  });
});

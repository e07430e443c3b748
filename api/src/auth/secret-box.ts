import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { AppError } from "../errors";
import { deriveKey } from "./secrets";

/**
 * Secrets at rest (upstream header values, upstream OAuth credentials) are sealed with
 * AES-256-GCM under a key derived from LOADOUT_SECRET_KEY for one purpose. The sealed text
 * names its key, so a new key can be put first while older ones still open old values:
 * `v1.<keyId>.<base64url iv>.<base64url ciphertext+tag>`.
 */
export interface SecretBox {
  /** The id of the key new seals use. */
  readonly keyId: string;
  /** Seals with the first (current) key; `associatedData` names the record the value belongs to. */
  seal(plaintext: string, associatedData: string): Promise<string>;
  /** Opens with the key the sealed text names; throws `SecretBoxError` if it cannot. */
  open(sealed: string, associatedData: string): Promise<string>;
}

export interface SecretBoxKey {
  /** Short and stable (`k2025`): it is stored in every sealed value. */
  id: string;
  /** A LOADOUT_SECRET_KEY value. */
  secret: string;
}

/**
 * The keys of a deployment: LOADOUT_SECRET_KEY first (it seals), then the earlier values listed in
 * LOADOUT_PREVIOUS_SECRET_KEYS, which still open what they sealed. A key's id is derived from it,
 * so every instance given the same key names it alike; a key listed twice counts once.
 */
export function deploymentKeys(current: string, previous: readonly string[] = []): SecretBoxKey[] {
  const keys: SecretBoxKey[] = [];
  for (const secret of [current, ...previous]) {
    const id = `k${bytesToHex(sha256(utf8ToBytes(secret))).slice(0, 8)}`;
    if (!keys.some((key) => key.id === id)) keys.push({ id, secret });
  }
  return keys;
}

/** The id of the key a sealed value names, or null for text that is not a sealed value. */
export function sealedKeyId(sealed: string): string | null {
  const [version, keyId] = sealed.split(".", 3);
  return version === VERSION && keyId !== undefined && KEY_ID.test(keyId) ? keyId : null;
}

/** Its message names what went wrong, never a plaintext or a key. */
export class SecretBoxError extends AppError {
  constructor(message: string) {
    super("internal", message);
    this.name = "SecretBoxError";
  }
}

const VERSION = "v1";
const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;
const MIN_SECRET_LENGTH = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const DEFAULT_PURPOSE = "secret-box";

export function createSecretBox(keys: readonly SecretBoxKey[], options: { purpose?: string } = {}): SecretBox {
  const current = keys[0];
  if (!current) throw new SecretBoxError("The secret box needs at least one key.");
  const purpose = options.purpose ?? DEFAULT_PURPOSE;
  const byId = new Map<string, Promise<CryptoKey>>();
  for (const key of keys) {
    if (!KEY_ID.test(key.id)) {
      throw new SecretBoxError(`Key id "${key.id}" is invalid: use 1–32 letters, digits, "_" or "-".`);
    }
    if (byId.has(key.id)) throw new SecretBoxError(`Key id "${key.id}" is listed twice.`);
    if (key.secret.length < MIN_SECRET_LENGTH) {
      throw new SecretBoxError(`Key "${key.id}" is too short: use at least ${MIN_SECRET_LENGTH} characters.`);
    }
    const raw = deriveKey(key.secret, `${purpose}:aes-256-gcm`);
    byId.set(key.id, crypto.subtle.importKey("raw", new Uint8Array(raw), "AES-GCM", false, ["encrypt", "decrypt"]));
  }
  const currentKey = byId.get(current.id);
  if (!currentKey) throw new SecretBoxError("The secret box needs at least one key.");

  return {
    keyId: current.id,

    async seal(plaintext, associatedData) {
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = await crypto.subtle.encrypt(
        { name: "AES-GCM", iv, additionalData: additionalData(current.id, associatedData) },
        await currentKey,
        encoder.encode(plaintext),
      );
      return [VERSION, current.id, toBase64Url(iv), toBase64Url(new Uint8Array(sealed))].join(".");
    },

    async open(sealed, associatedData) {
      const parts = sealed.split(".");
      const [version, keyId, ivText, bodyText] = parts;
      if (parts.length !== 4 || version !== VERSION || keyId === undefined || !KEY_ID.test(keyId)) {
        throw new SecretBoxError(`The stored secret is malformed: expected "${VERSION}.<keyId>.<iv>.<ciphertext>".`);
      }
      const iv = fromBase64Url(ivText ?? "");
      const body = fromBase64Url(bodyText ?? "");
      if (iv?.length !== IV_BYTES || !body || body.length < TAG_BYTES) {
        throw new SecretBoxError("The stored secret is malformed: its IV or ciphertext is not valid base64url.");
      }
      const key = byId.get(keyId);
      if (!key) {
        throw new SecretBoxError(
          `The stored secret was sealed with key "${keyId}", which this deployment no longer has: enter the secret again, or have the operator list that key in LOADOUT_PREVIOUS_SECRET_KEYS.`,
        );
      }
      let opened: ArrayBuffer;
      try {
        opened = await crypto.subtle.decrypt(
          { name: "AES-GCM", iv, additionalData: additionalData(keyId, associatedData) },
          await key,
          body,
        );
      } catch {
        throw new SecretBoxError(
          "The stored secret could not be decrypted: it was altered, belongs to another record, or its key changed.",
        );
      }
      return decoder.decode(opened);
    },
  };
}

const encoder = new TextEncoder();
const decoder = new TextDecoder("utf-8", { fatal: true });

/** The header is bound too, so a value cannot be relabelled with another key id or version. */
function additionalData(keyId: string, associatedData: string): Uint8Array<ArrayBuffer> {
  return encoder.encode(`${VERSION}.${keyId}.${associatedData}`);
}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** Strict: only the canonical unpadded base64url of some bytes decodes, anything else is null. */
function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return toBase64Url(bytes) === text ? bytes : null;
}

import { hkdf } from "@noble/hashes/hkdf.js";
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** `length` random base62 characters (rejection sampling keeps every character equally likely). */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(Math.min(length * 2, 4096))) {
      if (byte < 248) out += BASE62.charAt(byte % 62);
      if (out.length === length) break;
    }
  }
  return out;
}

export const API_TOKEN_PREFIX = "lo_";
const API_TOKEN_BODY = 43; // ~256 bits of base62

export function newApiTokenSecret(): string {
  return API_TOKEN_PREFIX + randomBase62(API_TOKEN_BODY);
}

/** Cheap shape check before any database work, so garbage never costs a query. */
export function looksLikeApiToken(value: string): boolean {
  return value.length === API_TOKEN_PREFIX.length + API_TOKEN_BODY && /^lo_[0-9A-Za-z]+$/.test(value);
}

export const INVITE_SECRET_PREFIX = "loi_";

/** The secret of an invite link (`loi_…`, ~256 bits); only its SHA-256 is stored. */
export function newInviteSecret(): string {
  return INVITE_SECRET_PREFIX + randomBase62(API_TOKEN_BODY);
}

export function looksLikeInviteSecret(value: string): boolean {
  return value.length === INVITE_SECRET_PREFIX.length + API_TOKEN_BODY && /^loi_[0-9A-Za-z]+$/.test(value);
}

export function newSessionSecret(): string {
  return randomBase62(43);
}

/** SHA-256 of a string's UTF-8, in hex: the portable one unless the host gave its own. */
let sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));

/**
 * Gives the host's native SHA-256 (Node's crypto) to `hashSecret`, which runs on every
 * authenticated request: the portable one costs twice as much CPU there. Returns the one it
 * replaces.
 */
export function useNativeSha256(hex: (text: string) => string): (text: string) => string {
  const previous = sha256Hex;
  sha256Hex = hex;
  return previous;
}

/**
 * Secrets with 256 bits of entropy are stored as plain SHA-256: a slow hash adds nothing
 * against guessing and would cost every authenticated request.
 */
export function hashSecret(secret: string): string {
  return sha256Hex(secret);
}

/** Keys derived from LOADOUT_SECRET_KEY, one per purpose, so no two uses share a key. */
export function deriveKey(secretKey: string, purpose: string): Uint8Array {
  return hkdf(sha256, utf8ToBytes(secretKey), undefined, utf8ToBytes(`loadout:${purpose}`), 32);
}

/** The CSRF token of a console session: an HMAC of the session id, so nothing extra is stored. */
export function csrfTokenFor(csrfKey: Uint8Array, sessionId: string): string {
  return bytesToHex(hmac(sha256, csrfKey, utf8ToBytes(sessionId)));
}

export function safeEqual(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

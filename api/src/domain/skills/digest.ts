import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** The Skills extension's resource digest: `sha256:` and 64 lowercase hex digits of the raw bytes. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${bytesToHex(sha256(bytes))}`;
}

/**
 * The same digest through WebCrypto, which both Node and Workers implement natively: about four
 * times faster than the JavaScript hash on large uploads (16 MiB: ~40 ms against ~160 ms).
 */
export async function digestOfAsync(bytes: Uint8Array): Promise<string> {
  return `sha256:${bytesToHex(new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>)))}`;
}

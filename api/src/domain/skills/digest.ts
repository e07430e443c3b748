import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/** The Skills extension's resource digest: `sha256:` and 64 lowercase hex digits of the raw bytes. */
export function digestOf(bytes: Uint8Array): string {
  return `sha256:${bytesToHex(sha256(bytes))}`;
}

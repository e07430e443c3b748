import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { deriveKey, safeEqual } from "../../auth/secrets";
import { AppError } from "../../errors";

/**
 * The proof that a browser started an authorization request: an HMAC of the request's id, set
 * as a cookie by `/oauth/authorize` and required when the request is read or answered. Without
 * it, anyone signed in who was sent a consent link could approve someone else's request (and
 * the code would go to that requester's client). Derived, not stored, so no column is needed;
 * only the browser that followed the authorize redirect ever holds it.
 */
export function browserBinding(secretKey: string, requestId: string): string {
  return bytesToHex(hmac(sha256, deriveKey(secretKey, "oauth-browser"), utf8ToBytes(requestId)));
}

/** Refuses a read or answer of the request from a browser that did not start it. */
export function assertSameBrowser(secretKey: string, requestId: string, presented: string | undefined): void {
  if (presented !== undefined && safeEqual(presented, browserBinding(secretKey, requestId))) return;
  throw new AppError(
    "forbidden",
    "This authorization request was started in another browser. Start the connection again from the app you are connecting, in this browser.",
  );
}

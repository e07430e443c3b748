import { createHash } from "node:crypto";

/** Node only: native SHA-256 of a string's UTF-8, in hex; the same as the portable one. */
export const nodeSha256Hex = (text: string): string => createHash("sha256").update(text, "utf8").digest("hex");

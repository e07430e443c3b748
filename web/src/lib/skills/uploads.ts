import type { FileInput } from "./types";

const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function toBase64(bytes: Uint8Array): string {
  let binary = "";
  // btoa takes a binary string; building it in chunks keeps large files off the call stack's limits.
  const chunk = 0x8000;
  for (let start = 0; start < bytes.length; start += chunk) {
    binary += String.fromCharCode(...bytes.subarray(start, start + chunk));
  }
  return btoa(binary);
}

// Text files travel as `content`, anything that is not clean UTF-8 (or holds NUL bytes) as base64.
export async function readUpload(file: Blob): Promise<FileInput> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  try {
    const text = strictUtf8.decode(bytes);
    if (!text.includes("\u0000")) return { content: text };
  } catch {
    // Not UTF-8: send the bytes.
  }
  return { contentBase64: toBase64(bytes) };
}

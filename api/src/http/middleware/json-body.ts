import { createMiddleware } from "hono/factory";
import { AppError } from "../../errors";
import type { AppEnv } from "../env";

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/**
 * Reads a JSON body within `limit` bytes and parses it once, so that too-large, mistyped and
 * malformed bodies each get an error that says which problem it is. The validator reuses the
 * cached body. A route may also take raw bodies of the `raw` media types (an archive upload):
 * those bytes are left in `c.var.rawBody`.
 */
export function jsonBody(limit: number = DEFAULT_BODY_LIMIT, raw: readonly string[] = []) {
  return createMiddleware<AppEnv>(async (c, next) => {
    const declared = Number(c.req.header("content-length") ?? "NaN");
    if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
    const type = c.req.header("content-type") ?? "";
    const essence = type.split(";")[0]?.trim().toLowerCase() ?? "";
    if (raw.includes(essence)) {
      const bytes = await readLimited(c.req.raw, limit);
      if (bytes.byteLength === 0)
        throw new AppError("invalid_request", `The request body is empty: send the ${essence} bytes.`);
      c.set("rawBody", bytes);
      await next();
      return;
    }
    const text = new TextDecoder().decode(await readLimited(c.req.raw, limit));
    if (text.trim() === "") {
      throw new AppError("invalid_request", "The request body is empty: send a JSON object.");
    }
    if (!/^application\/(?:[\w.+-]+\+)?json\b/i.test(type)) {
      const also = raw.length ? ` (or ${raw.join(", ")})` : "";
      throw new AppError(
        "unsupported_media_type",
        `Send the body as JSON with \`Content-Type: application/json\`${also}.`,
      );
    }
    try {
      JSON.parse(text);
    } catch (error) {
      throw new AppError("invalid_json", `The request body is not valid JSON: ${(error as Error).message}.`);
    }
    // Hand the already-read text to the validator through Hono's body cache.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    await next();
  });
}

/** Reads a body, refusing it as soon as it passes `limit` bytes, whatever Content-Length claimed. */
export async function readLimited(request: Request, limit: number): Promise<Uint8Array> {
  // A declared length is what HTTP framing delivers: within the limit, the body is read whole,
  // which on Node skips building a web stream over the socket.
  const declared = request.headers.get("content-length");
  if (declared !== null && /^\d{1,15}$/.test(declared)) {
    if (Number(declared) > limit) throw tooLarge(limit);
    return new Uint8Array(await request.arrayBuffer());
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  const all = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    all.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return all;
}

export function tooLarge(limit: number): AppError {
  const size = limit >= 1024 * 1024 ? `${(limit / 1024 / 1024).toFixed(0)} MiB` : `${Math.round(limit / 1024)} KiB`;
  // The rest of the body is never read, so this connection cannot carry another request.
  return new AppError("payload_too_large", `The request body is larger than this route accepts (${size}).`, {
    headers: { Connection: "close" },
  });
}

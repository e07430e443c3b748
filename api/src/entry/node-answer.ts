import type { ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import type { McpReply } from "../mcp/exchange";

/**
 * Writes an MCP answer on a Node response: its own headers, the security headers over them, and
 * the request scope's (request id, timing: `finals`, lowercase names) last, as Hono's middleware
 * order gives them. `streaming` is called once the head of an event stream is out: a stream may
 * run long, and what waits for the answer need not wait for its end. Resolves when the answer is
 * written (an event stream: when it ends).
 */
export async function writeReply(
  res: ServerResponse,
  reply: McpReply,
  security: Record<string, string>,
  finals: Record<string, string>,
  streaming: () => void,
): Promise<void> {
  const secure = securityPairs(security);
  const pairs: string[] = [];
  if ("payload" in reply) {
    for (const name in reply.headers)
      if (keeps(name, true, secure, finals)) pairs.push(name, reply.headers[name] as string);
    withFinals(pairs, secure, finals).push("content-length", String(Buffer.byteLength(reply.payload)));
    res.writeHead(reply.status, pairs);
    res.end(reply.payload);
    return;
  }
  // The SDK's answer: JSON, or an event stream passed on as it comes.
  for (const [name, value] of reply.headers) if (keeps(name, false, secure, finals)) pairs.push(name, value);
  res.writeHead(reply.status, withFinals(pairs, secure, finals));
  if (!reply.body) {
    res.end();
    return;
  }
  res.flushHeaders();
  streaming();
  await pipeline(Readable.fromWeb(reply.body as NodeReadableStream<Uint8Array>), res);
}

/** Whether an answer's own header is sent: not when a security header or the scope's sets it. */
function keeps(name: string, sized: boolean, secure: SecurityPairs, finals: Record<string, string>): boolean {
  const lower = name.toLowerCase();
  return !secure.names.has(lower) && !(lower in finals) && !(sized && lower === "content-length");
}

/** The answer's own pairs, then the security headers' and the scope's. */
function withFinals(pairs: string[], secure: SecurityPairs, finals: Record<string, string>): string[] {
  for (const pair of secure.pairs) pairs.push(pair);
  for (const name in finals) pairs.push(name, finals[name] as string);
  return pairs;
}

/** The security headers as Node's writeHead takes them (name, value, name, value…), and their names. */
interface SecurityPairs {
  pairs: string[];
  names: Set<string>;
}

/**
 * Made once: the security headers are the same object on every answer. Answers are written with
 * flat name-value arrays, not merged objects, which at this many names cost several KB each.
 */
const madePairs = new WeakMap<Record<string, string>, SecurityPairs>();
function securityPairs(security: Record<string, string>): SecurityPairs {
  let made = madePairs.get(security);
  if (!made) {
    const pairs: string[] = [];
    for (const name in security) pairs.push(name, security[name] as string);
    made = { pairs, names: new Set(Object.keys(security).map((name) => name.toLowerCase())) };
    madePairs.set(security, made);
  }
  return made;
}

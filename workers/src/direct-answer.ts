/**
 * Reading an upstream's answer to a direct call (see UpstreamPool.callDirect, whose comment gives
 * what the direct path saves over the SDK client, measured): a JSON body, or the events of an SSE
 * body, read as they arrive so that a server that keeps its stream open after the answer (the spec
 * only says it SHOULD close it) is not waited on.
 */

export type Answer = { result: Record<string, unknown> } | { error: { code: unknown; message: unknown } };

/** A request the server sends the client in the middle of a call (2025 sessions: an elicitation, say). */
export interface ServerRequest {
  id: string | number;
  method: string;
}

/** The answer in one JSON-RPC message text when it carries this id; null otherwise. */
export function messageAnswer(text: string, id: string | number): Answer | null {
  const m = jsonRpcObject(text);
  return m ? answerIn(m, id) : null;
}

function jsonRpcObject(text: string): Record<string, unknown> | null {
  // Only an object can be a JSON-RPC message. Most servers open their answer's stream with a
  // priming event whose data is empty (2025-11-25), and a JSON.parse that throws costs more than the
  // rest of reading the answer: 23 µs of the gateway's 0.29 ms a proxied call (CPU profile of the
  // peers' load, server-everything's echo).
  const opens = text.search(/\S/);
  if (opens === -1 || text.charCodeAt(opens) !== 0x7b) return null;
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return null;
  }
  if (!message || typeof message !== "object" || Array.isArray(message)) return null;
  const m = message as Record<string, unknown>;
  return m.jsonrpc === "2.0" ? m : null;
}

/** A server-to-client request in one message; null for anything else (answers, notifications). */
function requestIn(m: Record<string, unknown>): ServerRequest | null {
  if (typeof m.method !== "string" || "result" in m || "error" in m) return null;
  return typeof m.id === "string" || typeof m.id === "number" ? { id: m.id, method: m.method } : null;
}

function answerIn(m: Record<string, unknown>, id: string | number): Answer | null {
  if (m.id !== id) return null;
  if (m.error && typeof m.error === "object") return { error: m.error as { code: unknown; message: unknown } };
  if (m.result && typeof m.result === "object" && !Array.isArray(m.result))
    return { result: m.result as Record<string, unknown> };
  return null;
}

/** Splits an SSE body into its events' data as the text arrives (multi-line data joined with newlines). */
export class SseEvents {
  /** Text not yet part of a complete event, in the pieces it came in. */
  private pending: string[] = [];
  /** Its last three characters: a boundary may start there and end in the next piece. */
  private tail = "";

  /** The data of the events this text completes. */
  push(text: string): string[] {
    // Pieces are joined only once a boundary has come: joining (or searching) the whole text
    // for each piece would be quadratic in a 20 MB event.
    if (!/\r?\n\r?\n/.test(this.tail + text)) {
      this.pending.push(text);
      this.tail = (this.tail + text).slice(-3);
      return [];
    }
    let buffer = this.pending.join("") + text;
    const events: string[] = [];
    for (let boundary = /\r?\n\r?\n/.exec(buffer); boundary; boundary = /\r?\n\r?\n/.exec(buffer)) {
      events.push(...dataOf(buffer.slice(0, boundary.index)));
      buffer = buffer.slice(boundary.index + boundary[0].length);
    }
    this.pending = buffer ? [buffer] : [];
    this.tail = buffer.slice(-3);
    return events;
  }

  /** The data of a last event the stream ended without a blank line after. */
  end(): string[] {
    const rest = dataOf(this.pending.join(""));
    this.pending = [];
    this.tail = "";
    return rest;
  }
}

function dataOf(block: string): string[] {
  const data = block
    .split(/\r?\n/)
    .filter((line) => line.startsWith("data:"))
    .map((line) => line.slice(line.startsWith("data: ") ? 6 : 5));
  return data.length ? [data.join("\n")] : [];
}

/**
 * An answer's body: its chunks, and where the host's POST offers it (Node's dispatched post), the
 * whole text in one read, which costs less than iterating a JSON body's chunks.
 */
export type AnswerBody = AsyncIterable<Uint8Array> & { text?(): Promise<string> };

export const isEventStream = (contentType: string) => contentType.toLowerCase().startsWith("text/event-stream");

/**
 * Reads a body until the answer with this id: the whole of a JSON body, or SSE events until the
 * one that answers. What is left of a stream kept open is drained in the background (so the
 * connection can be reused), and cut after `drainMs`.
 */
export async function readAnswer(
  body: AnswerBody,
  contentType: string,
  id: string | number,
  /** Gives up on the rest of a stream kept open (aborts the request). */
  cut: () => void,
  drainMs = 5_000,
  /** Hears each request the server sends on the stream before its answer (it waits for a reply). */
  onRequest?: (request: ServerRequest) => void,
  /** Hears each notification the server sends on the stream before its answer (progress, logs). */
  onNotification?: (notification: { method: string; params?: Record<string, unknown> }) => void,
): Promise<Answer | null> {
  if (!isEventStream(contentType) && body.text) return messageAnswer(await body.text(), id);
  const decoder = new TextDecoder();
  const chunks = body[Symbol.asyncIterator]();
  if (!isEventStream(contentType)) {
    let raw = "";
    for (let next = await chunks.next(); !next.done; next = await chunks.next())
      raw += decoder.decode(next.value, { stream: true });
    return messageAnswer(raw + decoder.decode(), id);
  }
  const events = new SseEvents();
  const answerOrRequest = (data: string): Answer | null => {
    const m = jsonRpcObject(data);
    if (!m) return null;
    const answer = answerIn(m, id);
    if (answer) return answer;
    const request = requestIn(m);
    if (request) onRequest?.(request);
    else if (onNotification && typeof m.method === "string" && m.id === undefined)
      onNotification({
        method: m.method,
        ...(m.params && typeof m.params === "object" ? { params: m.params as Record<string, unknown> } : {}),
      });
    return null;
  };
  for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
    for (const data of events.push(decoder.decode(next.value, { stream: true }))) {
      const answer = answerOrRequest(data);
      if (answer) {
        void drain(chunks, cut, drainMs);
        return answer;
      }
    }
  }
  for (const data of [...events.push(decoder.decode()), ...events.end()]) {
    const answer = answerOrRequest(data);
    if (answer) return answer;
  }
  return null;
}

async function drain(chunks: AsyncIterator<Uint8Array>, cut: () => void, ms: number): Promise<void> {
  const stop = setTimeout(cut, ms);
  try {
    while (!(await chunks.next()).done) {
      // The rest of a stream the server kept open: nothing more is needed from it.
    }
  } catch {
    // Cut, or the connection went: either way, nothing was waiting on it.
  } finally {
    clearTimeout(stop);
  }
}

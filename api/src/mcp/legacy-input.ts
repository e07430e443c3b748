import type { PendingAnswers, RpcAnswer } from "../services/mcp/pending-answers";
import { LEGACY_STREAM_HEADERS, legacyEvent } from "./encode";

/**
 * An upstream's input requests (elicitation, sampling, roots) carried to a 2025-era client: the
 * 2025 revisions have no `input_required` result, so Loadout sends each request on the call's own
 * event stream, as a 2025 server would, and the client answers it with a later POST, which any
 * request of the same session may carry. That POST is answered 202 and its answer handed to the
 * call waiting for it here; the call then retries upstream with the answers (2026-07-28's
 * multi-round-trip requests, which the pool speaks to either era of upstream).
 *
 * Request ids carry ASK_PREFIX and a random part, so that concurrent calls of one session cannot
 * take each other's answers, and an answer is taken only from the session and credentials that
 * were asked (the owner). Written by hand: the SDK's stateless 2025 serving has no way for a
 * request's answer, which arrives on another HTTP request, to reach the server that sent it.
 *
 * Answers reach the call on the instance that holds its stream (see PendingAnswers: on Node the
 * instances pass them on to each other through Postgres).
 */
export const ASK_PREFIX = "lo-ask-";

/** Input rounds a call may take before it is given up, as the SDK's client bounds them. */
export const MAX_INPUT_ROUNDS = 8;

/**
 * The answers a POST carries, when it carries only answers to Loadout's own requests (one, or a
 * batch); null for anything else, which is the SDK's to handle.
 */
export function answersIn(body: unknown): RpcAnswer[] | null {
  const messages = Array.isArray(body) ? body : [body];
  if (messages.length === 0) return null;
  const answers: RpcAnswer[] = [];
  for (const message of messages) {
    if (!message || typeof message !== "object") return null;
    const m = message as Record<string, unknown>;
    if (m.jsonrpc !== "2.0" || "method" in m || typeof m.id !== "string" || !m.id.startsWith(ASK_PREFIX)) return null;
    if (!("result" in m) && !(m.error && typeof m.error === "object")) return null;
    answers.push(m as unknown as RpcAnswer);
  }
  return answers;
}

/**
 * An input request as a 2025-era client reads it: a URL-mode elicitation on 2025-11-25 carries an
 * `elicitationId`, which the 2026-07-28 shape (an upstream's, or Loadout's own) no longer has.
 */
export function legacyRequestParams(
  method: string,
  params: Record<string, unknown> | undefined,
): Record<string, unknown> | undefined {
  if (method !== "elicitation/create" || params?.mode !== "url" || typeof params.elicitationId === "string")
    return params;
  return { ...params, elicitationId: crypto.randomUUID() };
}

/** What a call answered on a 2025 event stream can do while it runs. */
export interface LegacyStream {
  /** Sends a notification (progress, a log message) on the call's stream. */
  notify(notification: { method: string; params?: Record<string, unknown> }): void;
  /** Sends a request to the client and waits for its answer (a result; an error answer throws). */
  ask(method: string, params: Record<string, unknown> | undefined): Promise<unknown>;
  readonly signal: AbortSignal;
}

/** A client's error answer to one of Loadout's requests (it declined, or failed). */
export class ClientAnswerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * A 2025 call's answer as an event stream that stays open while it runs: its notifications and
 * requests as they come, then the answer (`run`'s JSON-RPC message) as the last event.
 */
export function legacyCallStream(
  pending: PendingAnswers,
  owner: string,
  signal: AbortSignal,
  run: (stream: LegacyStream) => Promise<string>,
): Response {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
    },
    cancel() {
      open = false;
    },
  });
  const write = (json: string) => {
    if (open) controller.enqueue(encoder.encode(legacyEvent(json)));
  };
  const stream: LegacyStream = {
    signal,
    notify: (notification) => write(JSON.stringify({ jsonrpc: "2.0", ...notification })),
    async ask(method, params) {
      const id = `${ASK_PREFIX}${crypto.randomUUID()}`;
      const answer = pending.wait(id, owner, signal);
      write(JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }));
      const { result, error } = await answer;
      if (error) throw new ClientAnswerError(error.code, error.message);
      return result;
    },
  };
  void run(stream).then(
    (answer) => {
      write(answer);
      if (open) controller.close();
    },
    (error) => {
      if (open) controller.error(error);
    },
  );
  return new Response(body, { status: 200, headers: { ...LEGACY_STREAM_HEADERS } });
}

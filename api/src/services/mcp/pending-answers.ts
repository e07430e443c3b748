/**
 * What a 2025-era client sends about a call on a POST of its own, which any instance may serve:
 * its answers to the requests Loadout sent it during the call (see mcp/legacy-input.ts), by
 * request id, and `notifications/cancelled` for a call it gave up on, by the call's id. An
 * instance where no call waits for the message passes it on (`forward`, on Node a Postgres
 * notification every instance listens to, see startAnswerRelay), and the instance holding the
 * call takes it (`receive`).
 */

/** A JSON-RPC answer as a client sends it: a result or an error for an id. */
export interface RpcAnswer {
  id: string;
  result?: unknown;
  error?: { code: number; message: string; data?: unknown };
}

/** How long a call waits for a person to answer an elicitation, at most. */
const ASK_TIMEOUT_MS = 5 * 60_000;

interface Waiting {
  owner: string;
  settle(answer: RpcAnswer): void;
}

/** A client's cancellation of its call `requestId`, as it is passed between instances. */
export interface Cancelled {
  cancelled: string | number;
}

/** A message passed on: an answer, or a cancellation. */
export type Passed = RpcAnswer | Cancelled;
const isCancel = (message: Passed): message is Cancelled => "cancelled" in message;

/** Calls in flight that a client may still cancel, kept at most this long (a call's own timeout is shorter). */
const CANCELLABLE_FOR_MS = 15 * 60_000;

export class PendingAnswers {
  private readonly waiting = new Map<string, Waiting>();
  private readonly running = new Map<string, { at: number; listeners: (() => void)[] }>();

  /** @param forward passes on what no call here waits for (absent: there is no other instance). */
  constructor(private readonly forward?: (owner: string, message: Passed) => void) {}

  /**
   * Registers a call its client may cancel with `notifications/cancelled`: `onCancel` adds a
   * listener; `release` ends the registration once the call is answered.
   */
  cancellable(owner: string, requestId: string | number, now = Date.now()) {
    const key = `${owner}\u0000${JSON.stringify(requestId)}`;
    if (this.running.size >= 10_000) this.sweep(now);
    const entry = { at: now, listeners: [] as (() => void)[] };
    this.running.set(key, entry);
    return {
      onCancel: (listener: () => void) => {
        entry.listeners.push(listener);
      },
      release: () => {
        if (this.running.get(key) === entry) this.running.delete(key);
      },
    };
  }

  /** A client's cancellation, served here: of its call here, else passed on. */
  cancel(owner: string, requestId: string | number): void {
    if (!this.stop(owner, requestId)) this.forward?.(owner, { cancelled: requestId });
  }

  private stop(owner: string, requestId: string | number): boolean {
    const key = `${owner}\u0000${JSON.stringify(requestId)}`;
    const entry = this.running.get(key);
    if (!entry) return false;
    this.running.delete(key);
    for (const listener of entry.listeners) listener();
    return true;
  }

  private sweep(now: number): void {
    for (const [key, entry] of this.running) if (now - entry.at > CANCELLABLE_FOR_MS) this.running.delete(key);
  }

  /** Waits for the answer to request `id` from `owner`; rejects when the wait ends or the call is given up. */
  wait(id: string, owner: string, signal: AbortSignal): Promise<RpcAnswer> {
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", gone);
        this.waiting.delete(id);
      };
      const gone = () => {
        done();
        reject(new Error("The client went away before it answered."));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`The client did not answer within ${ASK_TIMEOUT_MS / 60_000} minutes.`));
      }, ASK_TIMEOUT_MS);
      if (signal.aborted) return gone();
      signal.addEventListener("abort", gone, { once: true });
      this.waiting.set(id, {
        owner,
        settle: (answer) => {
          done();
          resolve(answer);
        },
      });
    });
  }

  /** A client's answer, served here: to the call waiting for it here, else passed on. */
  deliver(owner: string, answer: RpcAnswer): void {
    if (!this.take(owner, answer)) this.forward?.(owner, answer);
  }

  /** What another instance passed on: taken if a call here waits for it, else dropped. */
  receive(owner: string, message: Passed): boolean {
    return isCancel(message) ? this.stop(owner, message.cancelled) : this.take(owner, message);
  }

  /** Hands an answer to the call waiting for it, if it is this owner's; whether one took it. */
  private take(owner: string, answer: RpcAnswer): boolean {
    const waiting = this.waiting.get(answer.id);
    if (!waiting || waiting.owner !== owner) return false;
    waiting.settle(answer);
    return true;
  }

  get size(): number {
    return this.waiting.size;
  }
}

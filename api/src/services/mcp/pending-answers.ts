/**
 * The answers that calls on this instance wait for: a 2025-era client's answers to the requests
 * Loadout sent it during a call (see mcp/legacy-input.ts), by request id. An answer comes on its
 * own POST, which any instance may serve: one that finds no call waiting for it here passes it on
 * (`forward`, on Node a Postgres notification every instance listens to, see startAnswerRelay),
 * and the instance holding the call takes it (`receive`).
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

export class PendingAnswers {
  private readonly waiting = new Map<string, Waiting>();

  /** @param forward passes on an answer no call here waits for (absent: there is no other instance). */
  constructor(private readonly forward?: (owner: string, answer: RpcAnswer) => void) {}

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

  /** An answer another instance passed on: taken if a call here waits for it, else dropped. */
  receive(owner: string, answer: RpcAnswer): boolean {
    return this.take(owner, answer);
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

/**
 * What a 2025-era client sends about a call on a POST of its own, which any instance may serve:
 * its answers to the requests Loadout sent it during the call (see mcp/legacy-input.ts), by
 * request id, and `notifications/cancelled` for a call it gave up on, by the call's id. An
 * instance where no call waits for the message passes it on, and the instance holding the call
 * takes it. On Node `forward` sends it as a Postgres notification every instance listens to (see
 * startAnswerRelay), and the holder is told (`receive`). Workers cannot listen: there it is posted
 * to the client's mailbox (a Durable Object per owner, workers/src/mailbox.ts), and the holder
 * takes it from there while its call waits (`mailbox`).
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

/** Messages between instances that cannot listen, by owner and key (Workers: workers/src/mailbox.ts). */
export interface CallMailbox {
  post(owner: string, key: string, message: Passed): Promise<void>;
  /** The message posted for `key`, once it is; null after `ms` without one. */
  take(owner: string, key: string, ms: number): Promise<unknown>;
}

/** How long one take from the mailbox waits; the call asks again while it still waits. */
const TAKE_MS = 25_000;
/**
 * A cancellable call asks the mailbox for its cancellation only once it has run this long: the
 * calls answered sooner (nearly all) cost the mailbox nothing, and a cancellation posted before
 * is kept there until asked for, so it still stops the call, this much later at most.
 */
export const CANCEL_WATCH_AFTER_MS = 1_000;
/** After a take that failed (the mailbox out of reach), the next waits this long. */
const RETRY_TAKE_MS = 1_000;

const answerKey = (id: string) => `answer:${id}`;
const cancelKey = (requestId: string | number) => `cancel:${JSON.stringify(requestId)}`;

/** A message taken from the mailbox, if it is an answer to `id`. */
function answerFor(id: string, message: unknown): RpcAnswer | null {
  if (!message || typeof message !== "object") return null;
  const m = message as Record<string, unknown>;
  if (m.id !== id) return null;
  if ("result" in m || (m.error && typeof m.error === "object")) return m as unknown as RpcAnswer;
  return null;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class PendingAnswers {
  private readonly waiting = new Map<string, Waiting>();
  private readonly running = new Map<string, { at: number; listeners: (() => void)[] }>();

  /**
   * @param forward passes on what no call here waits for, to instances that listen (Node).
   * @param mailbox where instances that cannot listen post and take such messages (Workers).
   * Neither: there is no other instance.
   */
  constructor(
    private readonly forward?: (owner: string, message: Passed) => void,
    private readonly mailbox?: CallMailbox,
  ) {}

  /**
   * Passes a message on to whichever instance holds its call; settled once it is posted (on
   * Workers the request that heard it must not end first, which would cancel the post).
   */
  private async passOn(owner: string, key: string, message: Passed): Promise<void> {
    this.forward?.(owner, message);
    await this.mailbox?.post(owner, key, message).catch(() => {
      // The mailbox is out of reach: the message stays unheard, as a lost notification would.
    });
  }

  /**
   * Takes `key` from the mailbox until `use` accepts what came or `waits` says to stop; a failed
   * take is tried again after a pause.
   */
  private async takeWhile(
    owner: string,
    key: string,
    waits: () => boolean,
    use: (message: unknown) => boolean,
  ): Promise<void> {
    const mailbox = this.mailbox;
    if (!mailbox) return;
    while (waits()) {
      let message: unknown;
      try {
        message = await mailbox.take(owner, key, TAKE_MS);
      } catch {
        await sleep(RETRY_TAKE_MS);
        continue;
      }
      if (message !== null && waits() && use(message)) return;
    }
  }

  /**
   * Registers a call its client may cancel with `notifications/cancelled`: `onCancel` adds a
   * listener; `release` ends the registration once the call is answered.
   */
  cancellable(owner: string, requestId: string | number, now = Date.now()) {
    const key = `${owner}\u0000${JSON.stringify(requestId)}`;
    if (this.running.size >= 10_000) this.sweep(now);
    const entry = { at: now, listeners: [] as (() => void)[] };
    this.running.set(key, entry);
    const registered = () => this.running.get(key) === entry;
    const watch = this.mailbox
      ? setTimeout(() => {
          void this.takeWhile(owner, cancelKey(requestId), registered, () => this.stop(owner, requestId));
        }, CANCEL_WATCH_AFTER_MS)
      : undefined;
    return {
      onCancel: (listener: () => void) => {
        entry.listeners.push(listener);
      },
      release: () => {
        clearTimeout(watch);
        if (registered()) this.running.delete(key);
      },
    };
  }

  /**
   * A client's cancellation, served here: of its call here, else passed on. Where a mailbox carries
   * them (Workers) it always goes through the mailbox, even to a call on this isolate: the call must
   * be stopped from its own request, since workerd refuses to abort one request's fetch or RPC from
   * another's ("Cannot perform I/O on behalf of a different request").
   */
  async cancel(owner: string, requestId: string | number): Promise<void> {
    if (!this.mailbox && this.stop(owner, requestId)) return;
    await this.passOn(owner, cancelKey(requestId), { cancelled: requestId });
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
      const entry: Waiting = {
        owner,
        settle: (answer) => {
          done();
          resolve(answer);
        },
      };
      this.waiting.set(id, entry);
      void this.takeWhile(
        owner,
        answerKey(id),
        () => this.waiting.get(id) === entry,
        (message) => {
          const answer = answerFor(id, message);
          return answer !== null && this.take(owner, answer);
        },
      );
    });
  }

  /** A client's answer, served here: to the call waiting for it here, else passed on. */
  async deliver(owner: string, answer: RpcAnswer): Promise<void> {
    if (!this.take(owner, answer)) await this.passOn(owner, answerKey(answer.id), answer);
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

/**
 * Messages for a running call that reach another isolate than the one running it: a 2025-era
 * client's answer to a request Loadout sent it during the call, and its `notifications/cancelled`
 * (see api/src/services/mcp/pending-answers.ts). Node instances pass these on through Postgres
 * `LISTEN`; Workers cannot listen, so on Workers they are posted to a Durable Object per client
 * session and credentials (the owner, `ClientMailbox` in proxy-worker.ts) and taken by the call's
 * isolate, which asks for them while it waits. Posting and taking meet in either order: a message
 * nobody waits for yet is kept a minute, and a take waits up to its bound for one to come.
 *
 * In memory only: an object that is evicted loses what it kept, which costs that call what a lost
 * message costs on Node (the answer's wait times out; an uncancelled call runs to its end).
 */

/** How long a message nobody has asked for yet is kept. */
export const KEPT_MS = 60_000;
/** Messages kept at most per owner; past it a new one is dropped. */
const MAX_KEPT = 256;
/** A take waits at most this long; the taker asks again while its call still runs. */
export const MAX_TAKE_MS = 30_000;

export class Mailbox<T> {
  private readonly kept = new Map<string, { message: T; until: number }>();
  private readonly takers = new Map<string, ((message: T | null) => void)[]>();

  /** Hands `message` to whoever waits for `key`, else keeps it for KEPT_MS. */
  post(key: string, message: T, now = Date.now()): void {
    const waiting = this.takers.get(key);
    if (waiting?.length) {
      this.takers.delete(key);
      for (const taker of waiting) taker(message);
      return;
    }
    for (const [k, entry] of this.kept) if (entry.until <= now) this.kept.delete(k);
    if (this.kept.size < MAX_KEPT) this.kept.set(key, { message, until: now + KEPT_MS });
  }

  /** The message posted for `key`, once it is (or already was); null after `ms` without one. */
  take(key: string, ms: number, now = Date.now()): Promise<T | null> {
    const kept = this.kept.get(key);
    if (kept) {
      this.kept.delete(key);
      if (kept.until > now) return Promise.resolve(kept.message);
    }
    return new Promise((resolve) => {
      const taker = (message: T | null) => {
        clearTimeout(timer);
        resolve(message);
      };
      const timer = setTimeout(
        () => {
          const left = (this.takers.get(key) ?? []).filter((t) => t !== taker);
          if (left.length) this.takers.set(key, left);
          else this.takers.delete(key);
          resolve(null);
        },
        Math.max(0, Math.min(ms, MAX_TAKE_MS)),
      );
      this.takers.set(key, [...(this.takers.get(key) ?? []), taker]);
    });
  }

  /** Whether anything is kept or awaited (an idle object may be let go). */
  get busy(): boolean {
    return this.kept.size > 0 || this.takers.size > 0;
  }
}

import type { CallOptions } from "./pool";

/**
 * The listeners of running calls by id, for `cancel` (see WireCallOptions.callId); an id
 * cancelled before its call listened is remembered, so that its listener is called at once.
 */
export class RunningCalls {
  private readonly listeners = new Map<string, (() => void)[]>();
  private readonly cancelled = new Set<string>();

  /** Cancellation as the pool takes it, for the call of this id. */
  whenGone(callId: string | undefined): Pick<CallOptions, "whenGone"> {
    if (typeof callId !== "string") return {};
    return {
      whenGone: (listener) => {
        if (this.cancelled.has(callId)) return listener();
        this.listeners.set(callId, [...(this.listeners.get(callId) ?? []), listener]);
      },
    };
  }

  cancel(callId: string) {
    const listeners = this.listeners.get(callId);
    this.listeners.delete(callId);
    if (!listeners) {
      if (this.cancelled.size > 1_000) this.cancelled.clear();
      this.cancelled.add(callId);
    }
    for (const listener of listeners ?? []) listener();
  }

  /** Runs a call, forgetting its id once it ended. */
  async run<T>(callId: string | undefined, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      if (typeof callId === "string") {
        this.listeners.delete(callId);
        this.cancelled.delete(callId);
      }
    }
  }
}

import { Mailbox } from "@loadout/workers";
import { describe, expect, it } from "vitest";
import { CANCEL_WATCH_AFTER_MS, type CallMailbox, type Passed, PendingAnswers } from "./pending-answers";

const id = "lo-ask-1";

describe("PendingAnswers", () => {
  it("hands an answer to the call waiting for it, from its owner only", async () => {
    const pending = new PendingAnswers();
    const waited = pending.wait(id, "owner-a", new AbortController().signal);
    expect(pending.receive("owner-b", { id, result: "theirs" })).toBe(false);
    expect(pending.receive("owner-a", { id, result: "ours" })).toBe(true);
    expect(await waited).toEqual({ id, result: "ours" });
    expect(pending.size).toBe(0);
    expect(pending.receive("owner-a", { id, result: "again" })).toBe(false);
  });

  it("stops waiting when the call is given up", async () => {
    const pending = new PendingAnswers();
    const gone = new AbortController();
    const waited = pending.wait(id, "owner", gone.signal);
    gone.abort();
    await expect(waited).rejects.toThrow("The client went away before it answered.");
    expect(pending.size).toBe(0);
  });
});

describe("PendingAnswers between instances", () => {
  it("passes on an answer no call here waits for, and takes one passed on for a call here", async () => {
    const passed: [string, Passed][] = [];
    const here = new PendingAnswers((owner, answer) => passed.push([owner, answer]));
    const elsewhere = new PendingAnswers();
    const waited = elsewhere.wait(id, "owner", new AbortController().signal);
    here.deliver("owner", { id, result: "yes" });
    expect(passed).toEqual([["owner", { id, result: "yes" }]]);
    for (const [owner, answer] of passed) elsewhere.receive(owner, answer);
    expect(await waited).toEqual({ id, result: "yes" });
  });
});

describe("a client's cancellation of its call", () => {
  it("stops the call it names, for its owner only, here or passed on", () => {
    const passed: [string, Passed][] = [];
    const here = new PendingAnswers((owner, message) => passed.push([owner, message]));
    const stopped: string[] = [];
    const call = here.cancellable("owner", 7);
    call.onCancel(() => stopped.push("seven"));
    here.cancel("someone else", 7);
    expect(stopped).toEqual([]);
    here.cancel("owner", 7);
    expect(stopped).toEqual(["seven"]);
    // Once stopped (or answered and released), a later cancellation goes to the other instances.
    here.cancel("owner", 7);
    expect(passed.at(-1)).toEqual(["owner", { cancelled: 7 }]);

    const elsewhere = new PendingAnswers();
    const theirs = elsewhere.cancellable("owner", "a");
    theirs.onCancel(() => stopped.push("a"));
    expect(elsewhere.receive("owner", { cancelled: "a" })).toBe(true);
    expect(stopped).toEqual(["seven", "a"]);
    const released = elsewhere.cancellable("owner", "b");
    released.onCancel(() => stopped.push("b"));
    released.release();
    expect(elsewhere.receive("owner", { cancelled: "b" })).toBe(false);
    expect(stopped).toEqual(["seven", "a"]);
  });
});

describe("PendingAnswers between isolates that cannot listen (a shared mailbox)", () => {
  /** Two isolates' PendingAnswers over one mailbox, as the proxy Worker's object holds it. */
  function isolates() {
    const box = new Mailbox<unknown>();
    let takes = 0;
    const mailbox: CallMailbox = {
      post: async (owner, key, message) => box.post(`${owner}\u0000${key}`, message),
      take: (owner, key, ms) => {
        takes++;
        return box.take(`${owner}\u0000${key}`, ms);
      },
    };
    return {
      here: new PendingAnswers(undefined, mailbox),
      there: new PendingAnswers(undefined, mailbox),
      takes: () => takes,
    };
  }

  it("takes an answer delivered on the other isolate, for its owner only", async () => {
    const { here, there } = isolates();
    const waited = here.wait(id, "owner-a", new AbortController().signal);
    there.deliver("owner-b", { id, result: "theirs" });
    there.deliver("owner-a", { id, result: "ours" });
    expect(await waited).toEqual({ id, result: "ours" });
    expect(here.size).toBe(0);
  });

  it("stops a call cancelled on the other isolate, once it has run a second", async () => {
    const { here, there } = isolates();
    const call = here.cancellable("owner", 5);
    let cancelled = 0;
    call.onCancel(() => cancelled++);
    const started = performance.now();
    there.cancel("owner", 5);
    await expect.poll(() => cancelled, { timeout: 3_000, interval: 20 }).toBe(1);
    expect(performance.now() - started).toBeGreaterThanOrEqual(CANCEL_WATCH_AFTER_MS - 50);
    call.release();
  });

  it("costs a call answered within the second nothing", async () => {
    const { here, takes } = isolates();
    here.cancellable("owner", 6).release();
    await new Promise((resolve) => setTimeout(resolve, CANCEL_WATCH_AFTER_MS + 100));
    expect(takes()).toBe(0);
  });
});

import { describe, expect, it } from "vitest";
import { PendingAnswers, type RpcAnswer } from "./pending-answers";

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
    const passed: [string, RpcAnswer][] = [];
    const here = new PendingAnswers((owner, answer) => passed.push([owner, answer]));
    const elsewhere = new PendingAnswers();
    const waited = elsewhere.wait(id, "owner", new AbortController().signal);
    here.deliver("owner", { id, result: "yes" });
    expect(passed).toEqual([["owner", { id, result: "yes" }]]);
    for (const [owner, answer] of passed) elsewhere.receive(owner, answer);
    expect(await waited).toEqual({ id, result: "yes" });
  });
});

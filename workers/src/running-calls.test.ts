import { describe, expect, it } from "vitest";
import { RunningCalls } from "./running-calls";

describe("RunningCalls: cancellation that crossed RPC as a call id", () => {
  it("calls a running call's listeners when its id is cancelled", async () => {
    const running = new RunningCalls();
    const heard: string[] = [];
    let release = () => {};
    const call = running.run("a", async () => {
      running.whenGone("a").whenGone?.(() => heard.push("a"));
      running.whenGone("b").whenGone?.(() => heard.push("b"));
      await new Promise<void>((resolve) => {
        release = resolve;
      });
    });
    running.cancel("a");
    expect(heard).toEqual(["a"]);
    release();
    await call;
  });

  it("calls a listener at once when its id was cancelled before the call listened", async () => {
    const running = new RunningCalls();
    running.cancel("early");
    let heard = false;
    await running.run("early", async () => {
      running.whenGone("early").whenGone?.(() => {
        heard = true;
      });
    });
    expect(heard).toBe(true);
  });

  it("forgets an id once its call ended, and offers no cancellation without one", async () => {
    const running = new RunningCalls();
    let heard = 0;
    await running.run("done", async () => {
      running.whenGone("done").whenGone?.(() => heard++);
    });
    running.cancel("done");
    expect(heard).toBe(0);
    expect(running.whenGone(undefined)).toEqual({});
  });
});

import { describe, expect, it } from "vitest";
import { Cancellation } from "./cancellation";

describe("Cancellation", () => {
  it("tells its listener once, with the first reason given", () => {
    const heard: string[] = [];
    const c = new Cancellation();
    c.listen((reason) => heard.push(reason.message));
    expect(c.reason).toBeUndefined();
    c.cancel(new Error("timed out"));
    c.cancel(new Error("client left"));
    expect(heard).toEqual(["timed out"]);
    expect(c.reason?.message).toBe("timed out");
  });

  it("tells a listener that comes after the cancellation at once", () => {
    const c = new Cancellation();
    c.cancel(new Error("client left"));
    const heard: string[] = [];
    c.listen((reason) => heard.push(reason.message));
    expect(heard).toEqual(["client left"]);
  });

  it("gives a signal that aborts with the same reason", () => {
    const c = new Cancellation();
    const signal = c.signal();
    expect(signal.aborted).toBe(false);
    c.cancel(new Error("cut"));
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("cut");
    const late = c.signal();
    expect(late.aborted).toBe(true);
  });
});

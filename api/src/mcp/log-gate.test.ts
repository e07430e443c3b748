import { describe, expect, it } from "vitest";
import { logGate } from "./log-gate";

const message = (level: string, data: string) => ({ method: "notifications/message", params: { level, data } });

describe("logGate", () => {
  it("reads the level once, at the first message, and passes on those at or above it, in order", async () => {
    let reads = 0;
    const sent: unknown[] = [];
    const gate = logGate(
      async () => {
        reads++;
        return "info";
      },
      (n) => {
        sent.push(n.params?.data ?? n.method);
      },
    );
    expect(reads).toBe(0);
    for (const [level, data] of [
      ["info", "a"],
      ["debug", "b"],
      ["error", "c"],
    ] as const)
      gate.notify(message(level, data));
    await gate.settled();
    expect(sent).toEqual(["a", "c"]);
    expect(reads).toBe(1);
  });

  it("reads nothing for a request that hears no message, and passes other notifications at once", async () => {
    let reads = 0;
    const sent: string[] = [];
    const gate = logGate(
      async () => {
        reads++;
        return "emergency";
      },
      (n) => {
        sent.push(n.method);
      },
    );
    gate.notify({ method: "notifications/progress", params: { progress: 1 } });
    expect(sent).toEqual(["notifications/progress"]);
    await gate.settled();
    expect(reads).toBe(0);
  });

  it("passes every message when the session set no level, or its level cannot be read", async () => {
    for (const levelOf of [async () => null, async () => Promise.reject(new Error("database away"))]) {
      const sent: unknown[] = [];
      const gate = logGate(levelOf, (n) => {
        sent.push(n.params?.data);
      });
      gate.notify(message("debug", "d"));
      await gate.settled();
      expect(sent).toEqual(["d"]);
    }
  });

  it("lets the messages through when the level is not read in time, so the answer is not held", async () => {
    const sent: unknown[] = [];
    const gate = logGate(
      () => new Promise(() => {}),
      (n) => {
        sent.push(n.params?.data);
      },
      20,
    );
    gate.notify(message("debug", "late"));
    await gate.settled();
    expect(sent).toEqual(["late"]);
  });
});

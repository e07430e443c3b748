import { describe, expect, it } from "vitest";
import { UpstreamFailed, UpstreamRpcError, UpstreamUnauthorized, UpstreamUnavailable } from "./outcomes";
import { fromWire, toWire, unwired, wired } from "./wire";

/** What RPC does to a value: a structured clone, which keeps data and drops classes. */
const overRpc = <T>(value: T): T => structuredClone(value);

describe("outcomes across Workers RPC", () => {
  it("throws each of the pool's errors again as its own class, with its fields", async () => {
    const cases: Error[] = [
      new UpstreamUnavailable("the connection was refused"),
      new UpstreamUnauthorized("refused the credentials (HTTP 401)", 401, 'Bearer resource_metadata="x"'),
      new UpstreamRpcError(-32602, "Invalid params", { field: "text" }),
      new UpstreamFailed("did not answer hang within 2 s."),
    ];
    for (const error of cases) {
      const answer = overRpc(
        await wired(async () => {
          throw error;
        }),
      );
      let thrown: unknown;
      try {
        unwired(answer);
      } catch (caught) {
        thrown = caught;
      }
      expect(thrown).toBeInstanceOf(error.constructor);
      expect(thrown).toMatchObject({ ...error, message: error.message });
    }
  });

  it("keeps a value as it is, and turns anything else into a plain error without its stack", async () => {
    expect(unwired(overRpc(await wired(async () => ({ tools: [], truncated: false }))))).toEqual({
      tools: [],
      truncated: false,
    });
    const wire = toWire(new TypeError("boom"));
    expect(wire).toEqual({ kind: "internal", message: "boom" });
    const error = fromWire(wire);
    expect(error).not.toBeInstanceOf(UpstreamUnavailable);
    expect(error.message).toBe("The upstream proxy failed: boom");
  });
});

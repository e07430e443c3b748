/**
 * Plan mode's three layers, each proved on its own: with the catalog's hiding skipped (a client
 * calling a hidden tool by name), dispatch refuses — see proxy.test.ts; here, with dispatch skipped
 * too, the proxy module itself refuses, and the upstream never hears of the call.
 */
import { UpstreamPool, type UpstreamTarget } from "@loadout/workers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type StatelessUpstream, startStatelessUpstream } from "../helpers/upstreams";

let upstream: StatelessUpstream;
let pool: UpstreamPool;
let target: UpstreamTarget;

beforeAll(async () => {
  upstream = await startStatelessUpstream();
  pool = new UpstreamPool({ fetchFor: () => fetch });
  target = {
    id: "srv_plan",
    generation: 1,
    name: "tracker",
    url: upstream.url,
    transport: "streamable-http",
    headers: {},
    callTimeoutMs: 5000,
  };
});
afterAll(async () => {
  await pool?.close();
  await upstream?.stop();
});

describe("the proxy's own plan check", () => {
  it.each([
    ["an action outside the list", ["list", "get"], { action: "create", title: "x" }],
    ["a call without an action", ["list"], { title: "x" }],
    ["a tool with no plan-safe actions", [], { action: "list" }],
  ])("refuses %s without contacting the upstream", async (_, planSafeActions, args) => {
    const before = upstream.requests();
    const result = await pool.callTool(target, "issues", args, { planSafeActions });
    expect(result.isError).toBe(true);
    expect(JSON.stringify(result.content)).toMatch(/refused this call: in plan mode tracker may only run/);
    expect(upstream.requests()).toBe(before);
    expect(upstream.calls("issues")).toBe(0);
  });

  it("lets a listed action through, and everything through in agent mode", async () => {
    const listed = await pool.callTool(target, "issues", { action: "list" }, { planSafeActions: ["list"] });
    expect(listed.isError).toBeFalsy();
    const created = await pool.callTool(
      target,
      "issues",
      { action: "create", title: "agent" },
      { planSafeActions: null },
    );
    expect(created.isError).toBeFalsy();
    expect(upstream.issues.map((i) => i.title)).toEqual(["agent"]);
  });
});

import type { UpstreamTarget } from "@loadout/workers";
import { describe, expect, it } from "vitest";
import { listUpstreamItems } from "./items";

/** An upstream that pages its prompts two at a time (what a listing sees of it: request and capabilities). */
function pagedUpstream(prompts: number) {
  const asked: string[] = [];
  return {
    asked,
    capabilities: async () => ({ prompts: {} }),
    request: async (_target: UpstreamTarget, method: string, params: Record<string, unknown>) => {
      asked.push(method);
      const from = Number(params.cursor ?? 0);
      const page = Array.from({ length: Math.min(2, prompts - from) }, (_, i) => ({ name: `p${from + i}` }));
      return { prompts: page, ...(from + 2 < prompts ? { nextCursor: String(from + 2) } : {}) };
    },
  };
}

const target = {} as UpstreamTarget;

describe("listUpstreamItems", () => {
  it("follows every page of the kinds the upstream declares, and asks for no other kind", async () => {
    const upstream = pagedUpstream(5);
    const listing = await listUpstreamItems(upstream, target);
    expect(listing.prompt?.map((p) => p.name)).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    expect(listing.resource).toBeUndefined();
    expect(upstream.asked).toEqual(["prompts/list", "prompts/list", "prompts/list"]);
  });

  it("leaves out a kind it could not list whole within the time budget, so its stored items stay", async () => {
    const listing = await listUpstreamItems(pagedUpstream(5), target, -1);
    expect(listing.prompt).toBeUndefined();
  });
});

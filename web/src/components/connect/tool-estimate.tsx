import type { ListingEstimate } from "@/lib/connect/types";

const number = new Intl.NumberFormat("en-US");

// What a URL's tool listing costs a client each turn, full against lazy, so a user can pick lazy mode.
export function ToolEstimate({ estimate, testId }: { estimate: ListingEstimate; testId: string }) {
  return (
    <span
      className="muted"
      data-testid={testId}
      title={`${estimate.tools} tools listed in full; the lazy listing offers find_tools and call_tool instead of the remote servers' tools. About four characters a token.`}
    >
      Full catalog ≈ {number.format(estimate.full)} tokens · lazy ≈ {number.format(estimate.lazy)} tokens
    </span>
  );
}

import { useSyncExternalStore } from "react";

const noSubscription = () => () => {};

// This console's origin: the MCP endpoint lives on the same one. Empty while prerendering.
export function useOrigin(): string {
  return useSyncExternalStore(
    noSubscription,
    () => window.location.origin,
    () => "",
  );
}

export const mcpUrlFor = (origin: string) => `${origin}/mcp`;

"use client";

import Link from "next/link";
import { ComingSoon } from "@/components/coming-soon";

export default function ConnectPage() {
  return (
    <ComingSoon title="Connect">
      <p>
        Here you will find your one MCP URL and how to add it: as a custom connector in ChatGPT or Claude, or with an
        API token in Claude Code, Cursor, VS Code and Codex. Every client then sees the same skills and tools.
      </p>
      <p>
        Header-based clients need an API token with the <code>mcp</code> scope: you can already create one on the{" "}
        <Link href="/tokens/">Tokens</Link> page.
      </p>
    </ComingSoon>
  );
}

"use client";

import { ComingSoon } from "@/components/coming-soon";

export default function ServersPage() {
  return (
    <ComingSoon title="Servers">
      <p>
        Here you will add remote MCP servers by pasting the <code>mcpServers</code> block from your clipboard, test each
        connection and see its tools, and scope each server to the projects where it should be active.
      </p>
      <p>Headers and upstream credentials are encrypted at rest and never shown again after you save them.</p>
    </ComingSoon>
  );
}

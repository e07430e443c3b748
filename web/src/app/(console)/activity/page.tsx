"use client";

import { ComingSoon } from "@/components/coming-soon";

export default function ActivityPage() {
  return (
    <ComingSoon title="Activity">
      <p>
        Here you will see the audit log of your workspaces — who changed which skill, server, token or member, and when
        — and how your MCP URL is used, by client and by tool.
      </p>
    </ComingSoon>
  );
}

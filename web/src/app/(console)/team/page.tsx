"use client";

import { ComingSoon } from "@/components/coming-soon";

export default function TeamPage() {
  return (
    <ComingSoon title="Team">
      <p>
        Here you will create a team workspace and invite teammates as owners, admins or members. Team skills and servers
        are shared: every member&apos;s MCP URL serves them.
      </p>
    </ComingSoon>
  );
}

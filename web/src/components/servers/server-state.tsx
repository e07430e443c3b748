"use client";

import { ActivationCell } from "@/components/activation-cell";
import { getServer, updateServer } from "@/lib/servers/client";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

type ServerStateProps = {
  server: Server;
  // The radio group is named by this element (the server's label in its row, or the page's heading).
  labelledBy: string;
  onChange: (server: Server) => void;
};

// Off / projects / global for a server: the same control as for skills, over its `enabled` and `scope`.
export function ServerState({ server, labelledBy, onChange }: ServerStateProps) {
  const ws = useWorkspace();
  return (
    <ActivationCell
      name={server.label}
      state={server.state}
      scope={server.scope}
      labelledBy={labelledBy}
      save={async (change) => onChange(await updateServer(ws, server.slug, { revision: server.revision, ...change }))}
      reload={async () => onChange(await getServer(ws, server.slug))}
    />
  );
}

"use client";

import Link from "next/link";
import { useId } from "react";
import { DataTable } from "@/components/data-table";
import { formatDateTime } from "@/lib/format";
import { serverHref } from "@/lib/servers/links";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";
import { ServerState } from "./server-state";
import { StatusLight } from "./status-light";

const TRANSPORT: Record<Server["transport"], string> = { "streamable-http": "HTTP", sse: "SSE (legacy)" };

function ServerRow({ server, onChange }: { server: Server; onChange: (server: Server) => void }) {
  const ws = useWorkspace();
  const nameId = useId();
  return (
    <tr
      data-testid="server-row"
      data-slug={server.slug}
      className={server.state === "off" ? "row-inactive" : undefined}
    >
      <th scope="row" data-label="Server">
        <Link href={serverHref(ws, server.slug)} className="skill-name" id={nameId}>
          {server.label}
        </Link>
        {server.slug !== server.label && (
          <div className="muted server-slug">
            <code>{server.slug}</code>
          </div>
        )}
      </th>
      <td data-label="URL" className="server-url" title={server.url}>
        <span className="server-url-text">{server.url}</span>
        <span className="chip">{TRANSPORT[server.transport]}</span>
      </td>
      <td data-label="Connection" className="server-connection">
        <StatusLight status={server.status} lastError={server.lastError} checkedAt={server.checkedAt} showError />
      </td>
      <td data-label="Tools" className="nowrap muted server-tools">
        {server.toolsFetchedAt ? (
          <span title={`Listed ${formatDateTime(server.toolsFetchedAt)}`}>
            {server.tools.total} {server.tools.total === 1 ? "tool" : "tools"}
          </span>
        ) : (
          "not listed yet"
        )}
        {server.tools.pending > 0 && (
          <div>
            <span className="chip chip-warning" title="New or changed tools are withheld until you approve them">
              {server.tools.pending} to review
            </span>
          </div>
        )}
        {server.toolsTruncated && (
          <div>
            <span
              className="chip chip-warning"
              title="The server offers more tools than Loadout serves from one server"
            >
              some left out
            </span>
          </div>
        )}
      </td>
      <td data-label="State" className="skill-state">
        <ServerState server={server} labelledBy={nameId} onChange={onChange} />
      </td>
    </tr>
  );
}

export function ServerTable({ servers, onChange }: { servers: Server[]; onChange: (server: Server) => void }) {
  return (
    <DataTable className="server-table" columns={["Server", "URL", "Connection", "Tools", "State"]}>
      {servers.map((server) => (
        <ServerRow key={server.id} server={server} onChange={onChange} />
      ))}
    </DataTable>
  );
}

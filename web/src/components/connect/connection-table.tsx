"use client";

import type { Connection, Endpoint } from "@/lib/connect/types";
import { formatDateTime, formatRelative } from "@/lib/format";
import { DataTable } from "../data-table";

type ConnectionTableProps = {
  connections: Connection[];
  endpoints: Endpoint[] | null;
  now: number;
};

function EndpointCell({ id, endpoints }: { id: string | null; endpoints: Endpoint[] | null }) {
  if (!id) return <span className="muted">—</span>;
  const endpoint = endpoints?.find((item) => item.id === id);
  if (endpoint) return <span>{endpoint.name}</span>;
  // Still loading, or deleted since: the id is all there is.
  return (
    <span className="muted" title={id}>
      {endpoints ? "Deleted endpoint" : id}
    </span>
  );
}

export function ConnectionTable({ connections, endpoints, now }: ConnectionTableProps) {
  if (connections.length === 0) {
    return (
      <div className="empty-state">
        <p className="empty-title">No client has connected yet</p>
        <p>Set up a client above; it shows here after its first request.</p>
      </div>
    );
  }
  return (
    <DataTable
      className="connect-table connection-table"
      columns={["Client", "Protocol", "Project", "Mode", "Endpoint", "Last seen", { label: "Requests", numeric: true }]}
    >
      {connections.map((connection) => (
        <tr key={connection.id} data-testid="connection-row">
          <th scope="row" data-label="Client">
            <span>
              <span className="client-name" data-testid="connection-client">
                {connection.clientName}
              </span>{" "}
              <span className="muted">{connection.clientVersion}</span>
            </span>
          </th>
          <td data-label="Protocol">
            <span className="nowrap">
              <span className="chip" title={connection.era === "modern" ? "Stateless revision" : "2025-era session"}>
                {connection.era}
              </span>{" "}
              <span className="muted">{connection.protocolVersion ?? "unknown"}</span>
            </span>
          </td>
          <td data-label="Project">
            {connection.project ? (
              <code className="connect-path">{connection.project}</code>
            ) : (
              <span className="muted">None</span>
            )}
          </td>
          <td data-label="Mode">{connection.mode}</td>
          <td data-label="Endpoint">
            <EndpointCell id={connection.endpointId} endpoints={endpoints} />
          </td>
          <td data-label="Last seen" className="nowrap">
            <time
              dateTime={connection.lastSeenAt}
              title={`Last seen ${formatDateTime(connection.lastSeenAt)}; first seen ${formatDateTime(connection.firstSeenAt)}`}
            >
              {formatRelative(connection.lastSeenAt, now)}
            </time>
          </td>
          <td data-label="Requests" className="numeric">
            {connection.requests.toLocaleString()}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

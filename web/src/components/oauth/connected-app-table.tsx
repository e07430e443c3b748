"use client";

import { ConfirmAction } from "@/components/confirm-action";
import { Timestamp } from "@/components/timestamp";
import type { ConnectedApp } from "@/lib/oauth/types";
import { DataTable } from "../data-table";
import { ClientIdentity } from "./client-identity";

export function ConnectedAppTable({
  apps,
  onRevoke,
}: {
  apps: ConnectedApp[];
  onRevoke: (app: ConnectedApp) => Promise<void>;
}) {
  if (apps.length === 0) {
    return (
      <div className="empty-state">
        <p className="empty-title">No connected apps</p>
        <p>Add your MCP URL as a custom connector in ChatGPT or Claude; it appears here once you allow it.</p>
      </div>
    );
  }
  return (
    <DataTable
      className="app-table"
      columns={["App", "Scopes", "Reaches", "Connected", "Last used", { label: "Actions", hidden: true }]}
    >
      {apps.map((app) => (
        <AppRow key={app.id} app={app} onRevoke={onRevoke} />
      ))}
    </DataTable>
  );
}

function AppRow({ app, onRevoke }: { app: ConnectedApp; onRevoke: (app: ConnectedApp) => Promise<void> }) {
  const pins = [app.project && `project ${app.project}`, app.mode && `${app.mode} mode`].filter(Boolean).join(", ");
  return (
    <tr data-testid="app-row">
      <th scope="row" data-label="App">
        <div>{app.client.name}</div>
        <div className="muted">
          <ClientIdentity client={app.client} short />
        </div>
        <code className="muted" style={{ overflowWrap: "anywhere" }}>
          {app.resource}
        </code>
      </th>
      <td data-label="Scopes">
        <ul className="chips" aria-label="Scopes">
          {app.scopes.map((scope) => (
            <li key={scope} className="chip">
              {scope}
            </li>
          ))}
        </ul>
      </td>
      <td data-label="Reaches">
        <div>{app.workspace ? app.workspace.name : "All workspaces"}</div>
        <div className="muted">{pins ? `Pinned: ${pins}` : "Nothing pinned"}</div>
      </td>
      <td data-label="Connected" className="nowrap">
        <Timestamp iso={app.createdAt} empty="—" />
      </td>
      <td data-label="Last used" className="nowrap">
        <Timestamp iso={app.lastUsedAt} empty="Never" withTime />
      </td>
      <td className="row-actions">
        <ConfirmAction verb="Disconnect" target={app.client.name} onConfirm={() => onRevoke(app)} />
      </td>
    </tr>
  );
}

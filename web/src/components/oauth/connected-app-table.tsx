"use client";

import { useState } from "react";
import { formatDate, formatDateTime } from "@/lib/format";
import type { ConnectedApp } from "@/lib/oauth/types";
import { DataTable } from "../data-table";
import { ClientIdentity } from "./client-identity";

function When({ iso, empty }: { iso: string | null; empty: string }) {
  if (!iso) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {formatDate(iso)}
    </time>
  );
}

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
  const [confirming, setConfirming] = useState(false);
  const [revoking, setRevoking] = useState(false);
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
        <When iso={app.createdAt} empty="—" />
      </td>
      <td data-label="Last used" className="nowrap">
        <When iso={app.lastUsedAt} empty="Never" />
      </td>
      <td className="row-actions">
        {confirming ? (
          <fieldset className="confirm" disabled={revoking}>
            <legend className="visually-hidden">Disconnect {app.client.name}?</legend>
            <button
              type="button"
              className="button button-small button-danger"
              onClick={async () => {
                setRevoking(true);
                try {
                  await onRevoke(app);
                } finally {
                  setRevoking(false);
                  setConfirming(false);
                }
              }}
            >
              Yes, disconnect
            </button>
            <button type="button" className="button button-small button-ghost" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </fieldset>
        ) : (
          <button
            type="button"
            className="button button-small button-danger-outline"
            onClick={() => setConfirming(true)}
          >
            Disconnect
          </button>
        )}
      </td>
    </tr>
  );
}

"use client";

import { ConfirmAction } from "@/components/confirm-action";
import { Timestamp } from "@/components/timestamp";
import { displayTokenPrefix } from "@/lib/format";
import type { ApiToken } from "@/lib/types";
import { DataTable } from "../data-table";

type TokenTableProps = {
  tokens: ApiToken[];
  onRevoke: (token: ApiToken) => Promise<void>;
};

export function TokenTable({ tokens, onRevoke }: TokenTableProps) {
  if (tokens.length === 0) {
    return (
      <div className="empty-state">
        <p className="empty-title">No tokens yet</p>
        <p>Create one above to connect an MCP client or a script.</p>
      </div>
    );
  }
  return (
    <DataTable
      className="token-table"
      columns={[
        "Name",
        "Scopes",
        "Workspace",
        "Created",
        "Expires",
        "Last used",
        "Status",
        { label: "Actions", hidden: true },
      ]}
    >
      {tokens.map((token) => (
        <TokenRow key={token.id} token={token} onRevoke={onRevoke} />
      ))}
    </DataTable>
  );
}

function TokenRow({ token, onRevoke }: { token: ApiToken; onRevoke: (token: ApiToken) => Promise<void> }) {
  return (
    <tr data-testid="token-row" className={token.status === "active" ? undefined : "row-inactive"}>
      <th scope="row" data-label="Name">
        <div className="token-id">
          <span className="token-name">{token.name}</span>
          <code className="token-prefix" title="Token prefix">
            {displayTokenPrefix(token.prefix)}
          </code>
        </div>
      </th>
      <td data-label="Scopes" className="token-scopes">
        <ul className="chips" aria-label="Scopes">
          {token.scopes.map((scope) => (
            <li key={scope} className="chip">
              {scope}
            </li>
          ))}
        </ul>
      </td>
      <td data-label="Workspace">
        {token.workspace ? (
          <span title={token.workspace.slug}>{token.workspace.name}</span>
        ) : (
          <span className="muted">All workspaces</span>
        )}
      </td>
      <td data-label="Created" className="nowrap">
        <Timestamp iso={token.createdAt} empty="—" />
      </td>
      <td data-label="Expires" className="nowrap">
        <Timestamp iso={token.expiresAt} empty="Never" />
      </td>
      <td data-label="Last used" className="nowrap">
        <Timestamp iso={token.lastUsedAt} empty="Never" withTime />
      </td>
      <td data-label="Status">
        <span className={`status status-${token.status}`} data-testid="token-status">
          {token.status}
        </span>
      </td>
      <td className="row-actions">
        {token.status === "active" && (
          <ConfirmAction verb="Revoke" target={token.name} onConfirm={() => onRevoke(token)} />
        )}
      </td>
    </tr>
  );
}

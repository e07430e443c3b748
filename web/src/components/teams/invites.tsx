"use client";

import { type FormEvent, useId, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { DataTable } from "@/components/data-table";
import { ErrorBanner } from "@/components/error-banner";
import { TextField } from "@/components/text-field";
import { api } from "@/lib/api";
import { splitErrorDetails } from "@/lib/form-errors";
import { formatDate } from "@/lib/format";
import { type CreatedInvite, type Invite, ROLE_HINTS, ROLE_LABELS } from "@/lib/teams/types";
import type { WorkspaceRole } from "@/lib/types";

const FIELDS = ["email", "role", "expiresInDays"] as const;

export function InviteForm({
  ws,
  role,
  onCreated,
  onError,
}: {
  ws: string;
  role: WorkspaceRole;
  onCreated: (created: CreatedInvite) => void;
  onError: (error: unknown) => boolean;
}) {
  const id = useId();
  const [email, setEmail] = useState("");
  const [inviteRole, setInviteRole] = useState<WorkspaceRole>("member");
  const [days, setDays] = useState("7");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const created = await api.post<CreatedInvite>(`/v1/workspaces/${encodeURIComponent(ws)}/invites`, {
        email: email.trim(),
        role: inviteRole,
        expiresInDays: Number(days),
      });
      setEmail("");
      onCreated(created);
    } catch (caught) {
      if (!onError(caught)) setError(caught);
    } finally {
      setPending(false);
    }
  };

  const { fields, others } = splitErrorDetails(error, FIELDS);
  return (
    <form className="form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} details={others} />
      <div className="form-row">
        <TextField
          label="Email"
          name="email"
          type="email"
          required
          autoComplete="off"
          placeholder="grace@example.com"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fields.email}
        />
        <div className="field">
          <label htmlFor={`${id}-role`} className="field-label">
            Role
          </label>
          <select
            id={`${id}-role`}
            className="input"
            value={inviteRole}
            aria-describedby={`${id}-role-hint`}
            onChange={(event) => setInviteRole(event.target.value as WorkspaceRole)}
          >
            <option value="member">{ROLE_LABELS.member}</option>
            <option value="admin">{ROLE_LABELS.admin}</option>
            {role === "owner" && <option value="owner">{ROLE_LABELS.owner}</option>}
          </select>
          <p id={`${id}-role-hint`} className="field-hint" data-testid="invite-role-hint">
            {ROLE_HINTS[inviteRole]}
          </p>
        </div>
        <div className="field">
          <label htmlFor={`${id}-days`} className="field-label">
            Link expires
          </label>
          <select id={`${id}-days`} className="input" value={days} onChange={(event) => setDays(event.target.value)}>
            <option value="1">in 1 day</option>
            <option value="7">in 7 days</option>
            <option value="30">in 30 days</option>
          </select>
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
          Create invite link
        </button>
      </div>
    </form>
  );
}

// The link exists in the browser only until this box is dismissed: Loadout keeps only a hash of it.
export function InviteLink({ created, onDismiss }: { created: CreatedInvite; onDismiss: () => void }) {
  const inputRef = useRef<HTMLInputElement>(null);
  return (
    <section className="secret-box" aria-label="Invite link">
      <div className="secret-header">
        <h3 className="secret-title">
          Invite link for {created.invite.email} ({ROLE_LABELS[created.invite.role]})
        </h3>
        <button type="button" className="button button-small button-ghost" onClick={onDismiss}>
          Dismiss
        </button>
      </div>
      <p className="secret-warning">
        Send this link to {created.invite.email}. It works once, until {formatDate(created.invite.expiresAt)}, and
        won&apos;t be shown again: to replace a lost link, invite the address again.
      </p>
      <div className="invite-link">
        <input
          ref={inputRef}
          className="input"
          readOnly
          value={created.url}
          aria-label="Invite link"
          data-testid="invite-link"
          onFocus={(event) => event.target.select()}
        />
        <CopyButton text={created.url} label="Copy the invite link" target={inputRef} />
      </div>
    </section>
  );
}

const STATUS_CLASS: Record<Invite["status"], string> = {
  pending: "status status-active",
  accepted: "status",
  declined: "status status-revoked",
  revoked: "status status-revoked",
  expired: "status status-expired",
};

export function InviteTable({ invites, onRevoke }: { invites: Invite[]; onRevoke: (invite: Invite) => Promise<void> }) {
  if (invites.length === 0) return <p className="muted">No invites in the last 30 days.</p>;
  return (
    <DataTable
      className="invite-table"
      columns={["Email", "Role", "Status", "Invited by", "Expires", { label: "Actions", hidden: true }]}
    >
      {invites.map((invite) => (
        <tr key={invite.id}>
          <th scope="row">{invite.email}</th>
          <td>{ROLE_LABELS[invite.role]}</td>
          <td>
            <span className={STATUS_CLASS[invite.status]}>{invite.status}</span>
          </td>
          <td>{invite.invitedBy?.email ?? "—"}</td>
          <td className="nowrap">{formatDate(invite.expiresAt)}</td>
          <td className="row-actions">
            {invite.status === "pending" && (
              <button
                type="button"
                className="button button-small button-danger-outline"
                aria-label={`Revoke the invite to ${invite.email}`}
                onClick={() => void onRevoke(invite)}
              >
                Revoke
              </button>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

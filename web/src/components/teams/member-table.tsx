"use client";

import { DataTable } from "@/components/data-table";
import { InlineConfirm } from "@/components/skills/inline-confirm";
import { formatDate } from "@/lib/format";
import { type Member, manages, ROLE_LABELS } from "@/lib/teams/types";
import type { WorkspaceRole } from "@/lib/types";

const ROLES: WorkspaceRole[] = ["owner", "admin", "member"];

// What the caller may do to a member: the API enforces the same rules and says why it refuses.
// The only owner's own role is not offered: a team must keep an owner (transfer ownership instead).
function canChange(actor: WorkspaceRole, member: Member, soleOwner: boolean): boolean {
  if (!manages(actor)) return false;
  if (member.role === "owner" && soleOwner) return false;
  return actor === "owner" || member.role !== "owner";
}

/** Whether the team has exactly one owner. */
export const hasSoleOwner = (members: Member[]) => members.filter((m) => m.role === "owner").length === 1;

export function MemberTable({
  members,
  role,
  userId,
  onRoleChange,
  onRemove,
}: {
  members: Member[];
  role: WorkspaceRole;
  userId: string;
  onRoleChange: (member: Member, role: WorkspaceRole) => Promise<void>;
  onRemove: (member: Member) => Promise<void>;
}) {
  const soleOwner = hasSoleOwner(members);
  return (
    <DataTable className="member-table" columns={["Member", "Role", "Joined", { label: "Actions", hidden: true }]}>
      {members.map((member) => {
        const self = member.userId === userId;
        const changeable = canChange(role, member, soleOwner);
        return (
          <tr key={member.userId} data-testid={`member-${member.email}`}>
            <th scope="row">
              <span className="token-name">{member.name || member.email}</span>
              {member.name && <span className="muted"> {member.email}</span>}
              {self && <span className="badge">you</span>}
            </th>
            <td>
              {changeable ? (
                <select
                  className="input role-select"
                  aria-label={`Role of ${member.email}`}
                  value={member.role}
                  onChange={(event) => void onRoleChange(member, event.target.value as WorkspaceRole)}
                >
                  {ROLES.filter((r) => role === "owner" || r !== "owner").map((r) => (
                    <option key={r} value={r}>
                      {ROLE_LABELS[r]}
                    </option>
                  ))}
                </select>
              ) : (
                ROLE_LABELS[member.role]
              )}
            </td>
            <td className="nowrap">{formatDate(member.joinedAt)}</td>
            <td className="row-actions">
              {changeable && !self && (
                <InlineConfirm
                  action="Remove"
                  question={`Remove ${member.email}? Their next MCP call no longer sees the team's items.`}
                  confirmLabel="Yes, remove"
                  danger
                  onConfirm={() => onRemove(member)}
                />
              )}
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

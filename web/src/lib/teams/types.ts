// Shapes of the team and activity routes, as the console reads them.
import type { Workspace, WorkspaceRole } from "../types";

export type Member = { userId: string; email: string; name: string; role: WorkspaceRole; joinedAt: string };

export type InviteStatus = "pending" | "accepted" | "declined" | "revoked" | "expired";

export type Invite = {
  id: string;
  email: string;
  role: WorkspaceRole;
  status: InviteStatus;
  invitedBy: { id: string; email: string } | null;
  createdAt: string;
  expiresAt: string;
  settledAt: string | null;
};

export type CreatedInvite = { invite: Invite; secret: string; url: string };

export type InvitePreview = {
  team: { slug: string; name: string };
  email: string;
  role: WorkspaceRole;
  status: InviteStatus;
  invitedBy: { email: string; name: string } | null;
  expiresAt: string;
};

/** What a signed-out visitor learns from an invite link: the team's name and the invited address. */
export type InviteIntroduction = { team: { name: string }; email: string };

export type AcceptedInvite = { workspace: Workspace };

export type Outcome = "ok" | "error" | "tool_error" | "not_active" | "plan_refused" | "withheld";

export type ActivityEvent = {
  id: string;
  at: string;
  kind: "call" | "change";
  action: string;
  actor: { id: string; email: string; name: string } | null;
  token: { id: string; name: string } | null;
  target: { type: string; id: string };
  item: string;
  data: Record<string, unknown>;
  call: {
    method: string;
    tool: string;
    client: string | null;
    outcome: Outcome;
    ms: number;
    mode: string;
    project: string | null;
    server: string | null;
    endpoint: string | null;
  } | null;
};

export type ActivityPage = { events: ActivityEvent[]; nextCursor: string | null };

export type UsageSeries = { name: string; calls: number; failures: number; days: number[] };

export type Usage = {
  from: string;
  to: string;
  days: { date: string; calls: number; errors: number; refusals: number }[];
  clients: UsageSeries[];
  tools: UsageSeries[];
  outcomes: Record<Outcome, number>;
};

export const ROLE_LABELS: Record<WorkspaceRole, string> = { owner: "Owner", admin: "Admin", member: "Member" };

/** What each role may do, said under the role select (in the option itself it was cut off). */
export const ROLE_HINTS: Record<WorkspaceRole, string> = {
  member: "Reads and writes the team's skills and servers.",
  admin: "Also manages members and invites.",
  owner: "Also transfers and deletes the team.",
};

export const manages = (role: WorkspaceRole | undefined) => role === "owner" || role === "admin";

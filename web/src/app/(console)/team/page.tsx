"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { InlineConfirm } from "@/components/skills/inline-confirm";
import { CreateTeamForm } from "@/components/teams/create-team-form";
import { DeleteTeam } from "@/components/teams/delete-team";
import { InviteForm, InviteLink, InviteTable } from "@/components/teams/invites";
import { hasSoleOwner, MemberTable } from "@/components/teams/member-table";
import { ApiError, api } from "@/lib/api";
import { type CreatedInvite, type Invite, type Member, manages, ROLE_LABELS } from "@/lib/teams/types";
import type { Workspace, WorkspaceRole } from "@/lib/types";
import { PERSONAL_WORKSPACE, useCurrentWorkspace } from "@/lib/workspace";

function PersonalView() {
  const { me, reload, handleAuthError } = useSession();
  const { select } = useCurrentWorkspace();
  const teams = me.workspaces.filter((w) => w.kind === "team");
  const created = async (team: Workspace) => {
    await reload();
    select(team.slug);
  };
  return (
    <>
      <section className="card" aria-labelledby="create-team-heading">
        <h2 id="create-team-heading" className="card-title">
          Create a team
        </h2>
        <p className="muted">
          A team shares skills, personas and servers: every member&apos;s MCP URL serves them, as
          <code> team/name</code> for skills and <code>team_server_tool</code> for tools. You become its owner.
        </p>
        <CreateTeamForm onCreated={(team) => void created(team)} onError={handleAuthError} />
      </section>
      <section className="card" aria-labelledby="teams-heading">
        <h2 id="teams-heading" className="card-title">
          Your teams
        </h2>
        {teams.length === 0 ? (
          <p className="muted">You are in no team yet. Create one, or open an invite link a teammate sent you.</p>
        ) : (
          <ul className="stack">
            {teams.map((team) => (
              <li key={team.id}>
                <button type="button" className="button button-small" onClick={() => select(team.slug)}>
                  Open {team.name}
                </button>{" "}
                <span className="muted">
                  {team.slug} · {ROLE_LABELS[team.role]}
                </span>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}

function TeamView({ team }: { team: Workspace }) {
  const { me, reload, handleAuthError } = useSession();
  const { select } = useCurrentWorkspace();
  const ws = team.slug;
  const path = `/v1/workspaces/${encodeURIComponent(ws)}`;
  const [members, setMembers] = useState<Member[] | null>(null);
  const [invites, setInvites] = useState<Invite[] | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [created, setCreated] = useState<CreatedInvite | null>(null);
  const [transferTo, setTransferTo] = useState("");
  const role: WorkspaceRole = members?.find((m) => m.userId === me.user.id)?.role ?? team.role;

  const load = useCallback(async () => {
    try {
      const list = await api.get<{ members: Member[] }>(`${path}/members`);
      setMembers(list.members);
      const mine = list.members.find((m) => m.userId === me.user.id)?.role;
      setInvites(manages(mine) ? (await api.get<{ invites: Invite[] }>(`${path}/invites`)).invites : []);
      setLoadError(null);
    } catch (error) {
      if (handleAuthError(error)) return;
      // Removed from the team (or it was deleted) since the console loaded: back to the personal workspace.
      if (error instanceof ApiError && error.status === 404) await reload();
      else setLoadError(error);
    }
  }, [path, me.user.id, handleAuthError, reload]);

  useEffect(() => {
    void load();
  }, [load]);

  // Runs a change, shows its refusal if any, and reloads what it may have changed.
  const act = async (change: () => Promise<unknown>, after?: () => Promise<void>) => {
    setActionError(null);
    try {
      await change();
      if (after) await after();
    } catch (error) {
      if (!handleAuthError(error)) setActionError(error);
    }
    await load();
  };

  const leaveOrGone = async () => {
    await reload();
    select(PERSONAL_WORKSPACE);
  };

  if (loadError)
    return (
      <div className="stack">
        <ErrorBanner error={loadError} />
        <button type="button" className="button" onClick={() => void load()}>
          Try again
        </button>
      </div>
    );
  if (!members || !invites) return <Loading label="Loading the team…" />;
  const others = members.filter((m) => m.userId !== me.user.id);

  return (
    <>
      <ErrorBanner error={actionError} />
      <section className="card" aria-labelledby="members-heading">
        <h2 id="members-heading" className="card-title">
          Members
        </h2>
        <MemberTable
          members={members}
          role={role}
          userId={me.user.id}
          onRoleChange={(member, next) =>
            act(() => api.patch(`${path}/members/${encodeURIComponent(member.userId)}`, { role: next }), reload)
          }
          onRemove={(member) => act(() => api.delete(`${path}/members/${encodeURIComponent(member.userId)}`))}
        />
      </section>

      {manages(role) && (
        <section className="card" aria-labelledby="invites-heading">
          <h2 id="invites-heading" className="card-title">
            Invites
          </h2>
          {created && <InviteLink created={created} onDismiss={() => setCreated(null)} />}
          <InviteForm
            ws={ws}
            role={role}
            onCreated={(result) => {
              setCreated(result);
              void load();
            }}
            onError={handleAuthError}
          />
          <InviteTable
            invites={invites}
            onRevoke={(invite) => act(() => api.delete(`${path}/invites/${encodeURIComponent(invite.id)}`))}
          />
        </section>
      )}

      <section className="card danger-zone" aria-labelledby="leave-heading">
        <h2 id="leave-heading" className="card-title">
          Ownership and leaving
        </h2>
        {role === "owner" && others.length > 0 && (
          <div className="form-row">
            <div className="field">
              <label htmlFor="transfer-to" className="field-label">
                Transfer ownership to
              </label>
              <select
                id="transfer-to"
                className="input"
                value={transferTo}
                onChange={(event) => setTransferTo(event.target.value)}
              >
                <option value="">Choose a member…</option>
                {others.map((m) => (
                  <option key={m.userId} value={m.userId}>
                    {m.email} ({ROLE_LABELS[m.role]})
                  </option>
                ))}
              </select>
              <p className="field-hint">They become an owner; you become an admin.</p>
            </div>
            <InlineConfirm
              action="Transfer"
              question="Make them an owner and yourself an admin?"
              confirmLabel="Yes, transfer"
              disabled={!transferTo}
              onConfirm={() => act(() => api.post(`${path}/transfer`, { userId: transferTo }), reload)}
            />
          </div>
        )}
        <p className="muted">
          Leaving removes the team&apos;s skills and tools from your MCP URL at once, and revokes your tokens narrowed
          to it. A team&apos;s last owner cannot leave: transfer ownership or delete the team.
        </p>
        {!(role === "owner" && hasSoleOwner(members)) && (
          <InlineConfirm
            action="Leave team"
            question={`Leave ${team.name}?`}
            confirmLabel="Yes, leave"
            danger
            onConfirm={() => act(() => api.post(`${path}/leave`), leaveOrGone)}
          />
        )}
        {role === "owner" && (
          <DeleteTeam
            team={team}
            onDeleted={leaveOrGone}
            onError={(error) => !handleAuthError(error) && setActionError(error)}
          />
        )}
      </section>
    </>
  );
}

export default function TeamPage() {
  const { workspace } = useCurrentWorkspace();
  const team = workspace?.kind === "team" ? workspace : null;
  return (
    <>
      <title>Team · Loadout</title>
      <header className="page-header">
        <h1 className="page-title">{team ? team.name : "Teams"}</h1>
        <p className="page-lead">
          {team
            ? `Team ${team.slug}: owners and admins manage members and invites; every member reads and writes the team's skills, personas and servers.`
            : "Your personal workspace is yours alone. Create a team to share skills and servers, or pick one in the workspace switcher."}
        </p>
      </header>
      {team ? <TeamView team={team} /> : <PersonalView />}
    </>
  );
}

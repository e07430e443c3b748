"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { AuthCard } from "@/components/auth-card";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { api, isUnauthenticated } from "@/lib/api";
import { setupTokenFromHash } from "@/lib/navigation";
import { type AcceptedInvite, type InviteIntroduction, type InvitePreview, ROLE_LABELS } from "@/lib/teams/types";
import { storeWorkspace } from "@/lib/workspace";

// The link's secret sits in the fragment (never sent to a server); it is kept for this tab while
// the visitor signs in or signs up, then read back here.
const STORAGE_KEY = "loadout.invite";

function inviteToken(): string | null {
  const fromHash = setupTokenFromHash(window.location.hash);
  try {
    if (fromHash) {
      window.sessionStorage.setItem(STORAGE_KEY, fromHash);
      window.history.replaceState(null, "", window.location.pathname);
      return fromHash;
    }
    return window.sessionStorage.getItem(STORAGE_KEY);
  } catch {
    return fromHash;
  }
}

function forget() {
  try {
    window.sessionStorage.removeItem(STORAGE_KEY);
  } catch {
    // Nothing kept.
  }
}

type State =
  | { kind: "loading" }
  | { kind: "missing" }
  | { kind: "signed-out"; introduction: InviteIntroduction }
  | { kind: "signed-out-unusable"; error: unknown }
  | { kind: "failed"; error: unknown }
  | { kind: "ready"; preview: InvitePreview }
  | { kind: "declined"; preview: InvitePreview };

export default function InvitePage() {
  const router = useRouter();
  const [token, setToken] = useState<string | null>(null);
  const [state, setState] = useState<State>({ kind: "loading" });
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async (secret: string) => {
    try {
      setState({ kind: "ready", preview: await api.post<InvitePreview>("/v1/invites/preview", { token: secret }) });
    } catch (caught) {
      if (!isUnauthenticated(caught)) {
        setState({ kind: "failed", error: caught });
        return;
      }
      // Before sign-in the link tells only which team and which address it is for.
      try {
        const introduction = await api.post<InviteIntroduction>(
          "/v1/invites/lookup",
          { token: secret },
          { csrf: false },
        );
        setState({ kind: "signed-out", introduction });
      } catch (unusable) {
        setState({ kind: "signed-out-unusable", error: unusable });
      }
    }
  }, []);

  useEffect(() => {
    const secret = inviteToken();
    setToken(secret);
    if (secret) void load(secret);
    else setState({ kind: "missing" });
  }, [load]);

  const answer = async (accept: boolean) => {
    if (!token || state.kind !== "ready") return;
    setBusy(true);
    setError(null);
    try {
      if (accept) {
        const joined = await api.post<AcceptedInvite>("/v1/invites/accept", { token });
        forget();
        storeWorkspace(joined.workspace.slug);
        router.replace("/team/");
        return;
      }
      await api.post<void>("/v1/invites/decline", { token });
      forget();
      setState({ kind: "declined", preview: state.preview });
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };

  if (state.kind === "loading")
    return (
      <AuthCard title="Team invite">
        <Loading label="Reading the invite…" />
      </AuthCard>
    );
  if (state.kind === "missing")
    return (
      <AuthCard title="Team invite">
        <p>
          This page needs the whole invite link, with the part after #token=. Copy it again from the message you got.
        </p>
      </AuthCard>
    );
  if (state.kind === "signed-out-unusable")
    return (
      <AuthCard title="Team invite">
        <div className="stack">
          <ErrorBanner error={state.error} />
          <Link className="button button-block" href="/signin/">
            Sign in
          </Link>
        </div>
      </AuthCard>
    );
  if (state.kind === "signed-out")
    return (
      <AuthCard
        title={`Join ${state.introduction.team.name}`}
        subtitle={
          <>
            This invite is for <strong data-testid="invite-email">{state.introduction.email}</strong>. Sign in with that
            address, or create an account with it, to see the invite and answer it.
          </>
        }
      >
        <div className="stack">
          <Link className="button button-primary button-block" href="/signin/?next=%2Finvite%2F">
            Sign in
          </Link>
          <Link className="button button-block" href="/signup/?next=%2Finvite%2F">
            Create an account
          </Link>
        </div>
      </AuthCard>
    );
  if (state.kind === "failed")
    return (
      <AuthCard title="Team invite">
        <ErrorBanner error={state.error} />
      </AuthCard>
    );
  const { preview } = state;
  if (state.kind === "declined")
    return (
      <AuthCard title="Invite declined">
        <p>You turned down the invite to {preview.team.name}. The link no longer works.</p>
        <Link className="button" href="/skills/">
          Go to your console
        </Link>
      </AuthCard>
    );
  const inviter = preview.invitedBy ? preview.invitedBy.name || preview.invitedBy.email : "Someone";
  return (
    <AuthCard
      title={`Join ${preview.team.name}`}
      subtitle={`${inviter} invited ${preview.email} to the team ${preview.team.slug} as ${ROLE_LABELS[preview.role].toLowerCase()}.`}
    >
      <div className="stack">
        <ErrorBanner error={error} />
        {preview.status === "pending" ? (
          <>
            <p className="muted">
              The team&apos;s skills and servers will reach your MCP URL as {preview.team.slug}/name and{" "}
              {preview.team.slug}_server_tool.
            </p>
            <button
              type="button"
              className="button button-primary button-block"
              disabled={busy}
              onClick={() => void answer(true)}
            >
              Accept and join
            </button>
            <button type="button" className="button button-block" disabled={busy} onClick={() => void answer(false)}>
              Decline
            </button>
          </>
        ) : (
          <p>
            This invite {preview.status === "expired" ? "has expired" : `was ${preview.status}`}. Ask an owner or admin
            of the team for a new one.
          </p>
        )}
      </div>
    </AuthCard>
  );
}

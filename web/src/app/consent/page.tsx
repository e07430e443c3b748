"use client";

import { useRouter } from "next/navigation";
import { type FormEvent, useEffect, useId, useState } from "react";
import { AuthCard } from "@/components/auth-card";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { ClientIdentity } from "@/components/oauth/client-identity";
import { api, isUnauthenticated, rememberCsrfToken } from "@/lib/api";
import { signInPathFor } from "@/lib/navigation";
import type { AuthorizationRequest, Mode } from "@/lib/oauth/types";
import type { Me } from "@/lib/types";

type State =
  | { kind: "loading" }
  | { kind: "ready"; request: AuthorizationRequest; me: Me }
  | { kind: "failed"; error: unknown };

// The OAuth consent page: /oauth/authorize validated the request and sent the browser here with
// its id. Signed out, the user signs in and comes back; the answer goes to the REST API, which
// returns the client's redirect URI (with the code, or access_denied).
export default function ConsentPage() {
  const router = useRouter();
  const [state, setState] = useState<State>({ kind: "loading" });
  const [workspace, setWorkspace] = useState("");
  const [project, setProject] = useState("");
  const [mode, setMode] = useState<"" | Mode>("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const ids = { workspace: useId(), project: useId(), mode: useId() };

  useEffect(() => {
    const id = new URLSearchParams(window.location.search).get("request") ?? "";
    const controller = new AbortController();
    (async () => {
      try {
        const request = await api.get<AuthorizationRequest>(`/v1/oauth/requests/${encodeURIComponent(id)}`, {
          signal: controller.signal,
        });
        const me = await api.get<Me>("/v1/me", { signal: controller.signal });
        rememberCsrfToken(me.csrfToken);
        setState({ kind: "ready", request, me });
      } catch (caught) {
        if (caught instanceof DOMException && caught.name === "AbortError") return;
        if (isUnauthenticated(caught)) {
          router.replace(signInPathFor(`${window.location.pathname}${window.location.search}`));
          return;
        }
        setState({ kind: "failed", error: caught });
      }
    })();
    return () => controller.abort();
  }, [router]);

  if (state.kind === "loading") {
    return (
      <main className="center-page">
        <Loading label="Loading the request…" />
      </main>
    );
  }
  if (state.kind === "failed") {
    return (
      <AuthCard title="Cannot connect">
        <title>Cannot connect · Loadout</title>
        <ErrorBanner error={state.error} />
      </AuthCard>
    );
  }

  const { request, me } = state;
  const decide = async (approve: boolean) => {
    setPending(true);
    setError(null);
    try {
      const { redirectTo } = await api.post<{ redirectTo: string }>(
        `/v1/oauth/requests/${encodeURIComponent(request.id)}/decision`,
        approve
          ? { approve, workspace: workspace || null, project: project.trim() || null, mode: mode || null }
          : { approve },
      );
      window.location.assign(redirectTo);
    } catch (caught) {
      setError(caught);
      setPending(false);
    }
  };
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void decide(true);
  };
  const reached = workspace ? me.workspaces.filter((w) => w.slug === workspace) : me.workspaces;

  return (
    <AuthCard
      title={`Connect ${request.client.name}`}
      subtitle={
        <>
          <strong>{request.client.name}</strong> wants to use your Loadout skills and tools as{" "}
          <strong>{me.user.email}</strong>.
        </>
      }
    >
      <title>{`Connect ${request.client.name} · Loadout`}</title>
      <p className="field-hint">
        <ClientIdentity client={request.client} />
      </p>
      <ErrorBanner error={error} />
      <form className="form" onSubmit={onSubmit}>
        <section aria-label="What it will reach">
          <p className="field-label">It will be able to</p>
          <ul>
            {request.scopes.map((scope) => (
              <li key={scope.name}>
                <code>{scope.name}</code>: {scope.description}
              </li>
            ))}
          </ul>
          <p className="field-hint">
            At <code>{request.resource}</code>, in {reached.map((w) => w.name).join(", ")}. It is sent back to{" "}
            <code>{request.redirectUri}</code>.
          </p>
        </section>
        <div className="field">
          <label htmlFor={ids.workspace} className="field-label">
            Workspaces
          </label>
          <select id={ids.workspace} className="input" value={workspace} onChange={(e) => setWorkspace(e.target.value)}>
            <option value="">All my workspaces</option>
            {me.workspaces.map((w) => (
              <option key={w.id} value={w.slug}>
                Only {w.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={ids.project} className="field-label">
            Project (optional)
          </label>
          <input
            id={ids.project}
            className="input input-mono"
            value={project}
            placeholder="/path/to/project"
            onChange={(e) => setProject(e.target.value)}
          />
          <p className="field-hint">Pin a project so that project-scoped skills and servers apply.</p>
        </div>
        <div className="field">
          <label htmlFor={ids.mode} className="field-label">
            Mode
          </label>
          <select id={ids.mode} className="input" value={mode} onChange={(e) => setMode(e.target.value as "" | Mode)}>
            <option value="">Let the app choose (agent by default)</option>
            <option value="agent">Agent: every tool</option>
            <option value="plan">Plan: read-only tools</option>
            <option value="goal">Goal: read-only tools</option>
          </select>
        </div>
        <div className="form-actions">
          <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
            Allow
          </button>
          <button type="button" className="button" disabled={pending} onClick={() => void decide(false)}>
            Deny
          </button>
        </div>
        <p className="field-hint">You can disconnect it at any time on the Connected apps page.</p>
      </form>
    </AuthCard>
  );
}

"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { formatDateTime } from "@/lib/format";
import {
  type ConnectionState,
  disconnect,
  getConnections,
  type ServerConnections,
  startConnect,
} from "@/lib/servers/connection";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

const STATE_LABEL: Record<ConnectionState["state"], string> = {
  connected: "Connected",
  needs_sign_in: "Needs sign-in",
  not_connected: "Not connected",
};

// The light's colour for a connection state: green connected, red needs sign-in, grey not connected.
const LIGHT: Record<ConnectionState["state"], string> = {
  connected: "ok",
  needs_sign_in: "failed",
  not_connected: "unknown",
};

function ConnectionLine({ label, connection }: { label: string; connection: ConnectionState }) {
  return (
    <div className="stack" data-testid={`connection-${connection.owner}`} data-state={connection.state}>
      <span className="status-light-wrap">
        <span className={`status-light status-light-${LIGHT[connection.state]}`}>
          <span className="status-dot" aria-hidden="true" />
          {label}: {STATE_LABEL[connection.state]}
        </span>
        {connection.lastError && <span className="status-error">{connection.lastError}</span>}
      </span>
      {connection.state !== "not_connected" && (
        <p className="field-hint">
          {connection.scopes.length ? (
            <>
              Scopes granted: <span data-testid="connection-scopes">{connection.scopes.join(" ")}</span>
            </>
          ) : (
            "No scopes named."
          )}
          {connection.connectedAt && <> · since {formatDateTime(connection.connectedAt)}</>}
        </p>
      )}
      {connection.stepUpScopes.length > 0 && (
        <p className="field-hint" role="note">
          The server asked for more access ({connection.stepUpScopes.join(" ")}): connect again to grant it.
        </p>
      )}
    </div>
  );
}

type Busy = null | "connect" | "share" | "disconnect" | "unshare";

// The sign-in of a server that uses OAuth: your account's state (or the team's), Connect,
// "Connect for the team" for owners and admins, each member's state for them, and Disconnect.
// Connect leaves for the server's sign-in page; the callback brings the browser back here.
export function ConnectionPanel({ server }: { server: Server }) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [view, setView] = useState<ServerConnections | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [clientId, setClientId] = useState("");
  const [clientSecret, setClientSecret] = useState("");
  const [justConnected] = useState(
    () => typeof window !== "undefined" && new URLSearchParams(window.location.search).get("connected") === "1",
  );

  const load = useCallback(async () => {
    try {
      setView(await getConnections(ws, server.slug));
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
  }, [ws, server.slug, handleAuthError]);

  // The server's sign-in changes when it is tested (Test finds OAuth from a 401) or edited.
  // biome-ignore lint/correctness/useExhaustiveDependencies: reload when the server's state changes
  useEffect(() => {
    void load();
  }, [load, server.auth, server.checkedAt, server.revision]);

  if (server.auth !== "oauth" || !view) return <ErrorBanner error={error} />;

  const connect = async (shared: boolean) => {
    setBusy(shared ? "share" : "connect");
    setError(null);
    try {
      const { authorizationUrl } = await startConnect(ws, server.slug, {
        ...(shared ? { shared: true } : {}),
        ...(clientId.trim() ? { clientId: clientId.trim() } : {}),
        ...(clientSecret.trim() ? { clientSecret: clientSecret.trim() } : {}),
      });
      window.location.assign(authorizationUrl);
    } catch (caught) {
      setBusy(null);
      if (!handleAuthError(caught)) setError(caught);
    }
  };

  const forget = async (shared: boolean) => {
    setBusy(shared ? "unshare" : "disconnect");
    setError(null);
    try {
      await disconnect(ws, server.slug, shared);
      await load();
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setBusy(null);
    }
  };

  const team = ws !== "me";
  const shared = view.credentials === "shared";
  const mine = view.mine;
  return (
    <div className="stack" data-testid="connection-panel">
      <p className="field-hint">
        Signs in with OAuth{view.issuer ? <> at {view.issuer}</> : null}
        {shared
          ? ": one connection, set by an admin, serves the whole team."
          : ": each member connects their own account."}
      </p>
      {justConnected && (
        <p className="form-status" role="status">
          Connected.
        </p>
      )}
      {view.shared && <ConnectionLine label="Team connection" connection={view.shared} />}
      {!shared && <ConnectionLine label="Your account" connection={mine} />}
      <div className="test-row">
        {!shared && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => void connect(false)}
            disabled={busy !== null}
            aria-busy={busy === "connect"}
          >
            {mine.state === "connected" ? "Connect again" : "Connect"}
          </button>
        )}
        {team && view.mayShare && (
          <button
            type="button"
            className="button"
            onClick={() => void connect(true)}
            disabled={busy !== null}
            aria-busy={busy === "share"}
          >
            Connect for the team
          </button>
        )}
        {!shared && mine.state !== "not_connected" && (
          <button type="button" className="button" onClick={() => void forget(false)} disabled={busy !== null}>
            Disconnect
          </button>
        )}
        {view.shared && view.shared.state !== "not_connected" && view.mayShare && (
          <button type="button" className="button" onClick={() => void forget(true)} disabled={busy !== null}>
            Disconnect the team's connection
          </button>
        )}
      </div>
      <details>
        <summary>Use a client you registered yourself</summary>
        <p className="field-hint">
          For a server that registers neither by Loadout's client metadata document nor dynamically: register a client
          there with the redirect URI <code>{`${window.location.origin}/oauth/upstream/callback`}</code> and enter it
          here before connecting.
        </p>
        <label className="field">
          <span>Client ID</span>
          <input value={clientId} onChange={(e) => setClientId(e.target.value)} autoComplete="off" />
        </label>
        <label className="field">
          <span>Client secret (if it has one)</span>
          <input
            type="password"
            value={clientSecret}
            onChange={(e) => setClientSecret(e.target.value)}
            autoComplete="off"
          />
        </label>
      </details>
      {view.members.length > 0 && (
        <table className="data-table" data-testid="connection-members">
          <caption className="field-hint">Members' own connections</caption>
          <thead>
            <tr>
              <th scope="col">Member</th>
              <th scope="col">State</th>
              <th scope="col">Scopes</th>
            </tr>
          </thead>
          <tbody>
            {view.members.map((member) => (
              <tr key={member.email ?? ""}>
                <td>{member.email}</td>
                <td>{STATE_LABEL[member.state]}</td>
                <td>{member.scopes.join(" ")}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <ErrorBanner error={error} />
    </div>
  );
}

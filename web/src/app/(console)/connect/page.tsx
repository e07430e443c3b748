"use client";

import { useCallback, useEffect, useId, useState } from "react";
import { ClientSetup } from "@/components/connect/client-setup";
import { ConnectionTable } from "@/components/connect/connection-table";
import { Connectors } from "@/components/connect/connectors";
import { SyncedDevices } from "@/components/connect/devices";
import { EndpointForm, EndpointTable } from "@/components/connect/endpoints";
import { McpUrlSection } from "@/components/connect/mcp-url";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { listConnections, listEndpoints, listToolEstimates } from "@/lib/connect/client";
import { mcpUrlFor, useOrigin } from "@/lib/connect/origin";
import type { Connection, Endpoint, ToolEstimates } from "@/lib/connect/types";

type Loaded<T> = { data: T | null; error: unknown };

export default function ConnectPage() {
  const id = useId();
  const { handleAuthError } = useSession();
  const origin = useOrigin();
  const mcpUrl = mcpUrlFor(origin);
  const [endpoints, setEndpoints] = useState<Loaded<Endpoint[]>>({ data: null, error: null });
  const [connections, setConnections] = useState<Loaded<Connection[]>>({ data: null, error: null });
  // Optional: without them (an error, or still loading) the page shows no estimate rather than a wrong one.
  const [estimates, setEstimates] = useState<ToolEstimates | null>(null);
  const [loadedAt, setLoadedAt] = useState(() => Date.now());
  const [refreshing, setRefreshing] = useState(false);

  const loadEndpoints = useCallback(async () => {
    listToolEstimates().then(setEstimates, (error) => {
      if (!handleAuthError(error)) setEstimates(null);
    });
    try {
      const list = await listEndpoints();
      setEndpoints({ data: list.endpoints, error: null });
    } catch (error) {
      if (!handleAuthError(error)) setEndpoints((current) => ({ ...current, error }));
    }
  }, [handleAuthError]);

  const loadConnections = useCallback(async () => {
    setRefreshing(true);
    try {
      const list = await listConnections();
      setConnections({ data: list.connections, error: null });
      setLoadedAt(Date.now());
    } catch (error) {
      if (!handleAuthError(error)) setConnections((current) => ({ ...current, error }));
    } finally {
      setRefreshing(false);
    }
  }, [handleAuthError]);

  useEffect(() => {
    void loadEndpoints();
    void loadConnections();
  }, [loadEndpoints, loadConnections]);

  return (
    <>
      <title>Connect · Loadout</title>
      <header className="page-header">
        <h1 className="page-title">Connect</h1>
        <p className="page-lead">
          Add your one MCP URL to Claude Code, Cursor, VS Code, Codex and other clients with an API token, or to ChatGPT
          and Claude as a connector. Every client then sees the same skills, personas and tools.
        </p>
      </header>

      <McpUrlSection url={mcpUrl} estimate={estimates?.default ?? null} />

      <section className="card" aria-labelledby={`${id}-clients`}>
        <h2 id={`${id}-clients`} className="card-title">
          Set up a client
        </h2>
        <ClientSetup mcpUrl={mcpUrl} />
      </section>

      <section className="card" aria-labelledby={`${id}-connectors`}>
        <h2 id={`${id}-connectors`} className="card-title">
          ChatGPT and Claude connectors
        </h2>
        <Connectors mcpUrl={mcpUrl} />
      </section>

      <section className="card" aria-labelledby={`${id}-endpoints`}>
        <h2 id={`${id}-endpoints`} className="card-title">
          Saved endpoints
        </h2>
        <p className="muted">
          For clients that cannot send Loadout&apos;s headers: a saved endpoint&apos;s URL pins a project and a mode,
          and ignores <code>X-Loadout-Project</code>, <code>X-Loadout-Mode</code>, <code>?project=</code> and{" "}
          <code>?mode=</code>. Clients still authenticate as on the main URL.
        </p>
        <EndpointForm onSaved={() => void loadEndpoints()} />
        <EndpointTable
          endpoints={endpoints.data}
          listError={endpoints.data === null ? endpoints.error : null}
          origin={origin}
          estimates={estimates}
          onRetry={() => void loadEndpoints()}
          onDeleted={() => void loadEndpoints()}
        />
        {endpoints.data !== null && <ErrorBanner error={endpoints.error} />}
      </section>

      <section className="card" aria-labelledby={`${id}-connections`}>
        <div className="card-heading">
          <h2 id={`${id}-connections`} className="card-title">
            Recent connections
          </h2>
          <button
            type="button"
            className="button button-small"
            onClick={() => void loadConnections()}
            disabled={refreshing}
            aria-busy={refreshing}
          >
            Refresh
          </button>
        </div>
        {connections.data === null ? (
          connections.error ? (
            <div className="stack">
              <ErrorBanner error={connections.error} />
              <button type="button" className="button" onClick={() => void loadConnections()}>
                Try again
              </button>
            </div>
          ) : (
            <Loading label="Loading connections…" />
          )
        ) : (
          <>
            <ErrorBanner error={connections.error} />
            <ConnectionTable connections={connections.data} endpoints={endpoints.data} now={loadedAt} />
          </>
        )}
      </section>

      <SyncedDevices />
    </>
  );
}

"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { ImportDialog } from "@/components/servers/import-dialog";
import { ServerTable } from "@/components/servers/server-table";
import { useSession } from "@/components/session-provider";
import { listServers } from "@/lib/servers/client";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

export default function ServersPage() {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [servers, setServers] = useState<Server[] | null>(null);
  const [limit, setLimit] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [pasting, setPasting] = useState(false);

  const load = useCallback(
    async (signal?: AbortSignal) => {
      setError(null);
      try {
        const answer = await listServers(ws, signal);
        setServers(answer.servers);
        setLimit(answer.limits.serversPerSession);
      } catch (caught) {
        if (signal?.aborted) return;
        if (!handleAuthError(caught)) setError(caught);
      }
    },
    [ws, handleAuthError],
  );

  useEffect(() => {
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, [load]);

  const replace = useCallback((updated: Server) => {
    setServers((current) => current?.map((server) => (server.id === updated.id ? updated : server)) ?? current);
  }, []);

  const paste = (
    <button type="button" className="button button-primary" onClick={() => setPasting(true)}>
      Paste servers
    </button>
  );
  const empty = servers !== null && servers.length === 0;

  return (
    <>
      <title>Servers · Loadout</title>
      <header className="page-header page-header-row">
        <div className="page-header">
          <h1 className="page-title">Servers</h1>
          <p className="page-lead">
            Remote MCP servers whose tools Loadout offers next to your skills, named{" "}
            <code>&lt;server&gt;_&lt;tool&gt;</code>. Test each one, review its tools before agents see them, and choose
            where it is active.
          </p>
        </div>
        {!empty && <div className="header-actions">{paste}</div>}
      </header>

      <section className="card" aria-label="Servers">
        {error ? (
          <div className="stack">
            <ErrorBanner error={error} />
            <button type="button" className="button" onClick={() => void load()}>
              Try again
            </button>
          </div>
        ) : servers === null ? (
          <Loading label="Loading servers…" />
        ) : empty ? (
          <div className="empty-state">
            <p className="empty-title">No servers yet</p>
            <p>
              Paste the <code>mcpServers</code> block from your client&apos;s config. Header values are encrypted at
              rest and never shown again after you save them.
            </p>
            <div className="empty-actions">{paste}</div>
          </div>
        ) : (
          <>
            {limit !== null && servers.filter((s) => s.state === "global").length > limit && (
              <p className="banner banner-warning" role="status" data-testid="over-cap">
                More than {limit} servers are on for every project. A session serves the {limit} added first and skips
                the rest; narrow some to projects or switch them off.
              </p>
            )}
            <ServerTable servers={servers} onChange={replace} />
          </>
        )}
      </section>

      {pasting && (
        <ImportDialog
          onImported={() => void load()}
          onClose={() => {
            setPasting(false);
            void load();
          }}
        />
      )}
    </>
  );
}

"use client";

import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { ConnectedAppTable } from "@/components/oauth/connected-app-table";
import { useSession } from "@/components/session-provider";
import { api } from "@/lib/api";
import type { ConnectedApp } from "@/lib/oauth/types";

export default function ConnectedAppsPage() {
  const { handleAuthError } = useSession();
  const [apps, setApps] = useState<ConnectedApp[] | null>(null);
  const [error, setError] = useState<unknown>(null);

  const load = useCallback(async () => {
    try {
      setApps((await api.get<{ apps: ConnectedApp[] }>("/v1/connected-apps")).apps);
      setError(null);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
  }, [handleAuthError]);

  useEffect(() => {
    void load();
  }, [load]);

  const revoke = async (app: ConnectedApp) => {
    try {
      await api.delete(`/v1/connected-apps/${encodeURIComponent(app.id)}`);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
    await load();
  };

  return (
    <>
      <title>Connected apps · Loadout</title>
      <header className="page-header">
        <h1 className="page-title">Connected apps</h1>
        <p className="page-lead">
          Apps you allowed through OAuth, such as ChatGPT and Claude connectors. Each reaches your MCP URL as you, with
          the scopes, workspace and pins you chose. Disconnecting one stops its access at once.
        </p>
      </header>
      <section className="card" aria-label="Connected apps">
        <ErrorBanner error={error} />
        {apps ? <ConnectedAppTable apps={apps} onRevoke={revoke} /> : !error && <Loading label="Loading apps…" />}
      </section>
    </>
  );
}

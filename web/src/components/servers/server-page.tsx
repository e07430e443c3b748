"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { InlineConfirm } from "@/components/skills/inline-confirm";
import { StaleNotice } from "@/components/stale-notice";
import { ApiError } from "@/lib/api";
import { formatDateTime } from "@/lib/format";
import { getServer, removeServer } from "@/lib/servers/client";
import { SERVERS_HREF } from "@/lib/servers/links";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";
import { ConnectionPanel } from "./connection-panel";
import { HeaderSecrets } from "./header-secrets";
import { ServerForm } from "./server-form";
import { ServerItems, useItems } from "./server-items";
import { ServerState } from "./server-state";
import { ServerTools } from "./server-tools";
import { ServerUrl } from "./server-url";
import { TestConnection } from "./test-connection";
import { useTools } from "./use-tools";

export function ServerPage({ initial }: { initial: Server }) {
  const ws = useWorkspace();
  const router = useRouter();
  const { handleAuthError } = useSession();
  const [server, setServer] = useState(initial);
  // Bumped when the page takes the stored server afresh (after a conflict), so the forms drop their drafts.
  const [generation, setGeneration] = useState(0);
  const [stale, setStale] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [placeholders, setPlaceholders] = useState(() => initial.placeholders);
  const tools = useTools(server.slug);
  const items = useItems(server.slug);

  const reloaded = (fresh: Server) => {
    setServer(fresh);
    setGeneration((current) => current + 1);
    setStale(false);
    setError(null);
  };

  // Saving the URL, transport or headers drops the cached tool list on the server: show what it keeps.
  const saved = (next: Server) => {
    setServer(next);
    void tools.reload();
    void items.reload();
  };

  const remove = async () => {
    setError(null);
    try {
      await removeServer(ws, server.slug, server.revision);
      router.push(SERVERS_HREF);
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) setStale(true);
      else setError(caught);
    }
  };

  const headingId = "server-heading";

  return (
    <>
      <title>{`${server.label} · Servers · Loadout`}</title>
      <header className="page-header">
        <p className="breadcrumb">
          <Link href={SERVERS_HREF}>Servers</Link>
        </p>
        <h1 className="page-title" id={headingId}>
          {server.label}
        </h1>
        <p className="page-lead">
          <code>{server.slug}</code> · {server.url} · saved {formatDateTime(server.updatedAt)}
        </p>
      </header>

      {stale && (
        <StaleNotice
          name={server.label}
          load={() => getServer(ws, server.slug)}
          onReloaded={reloaded}
          onError={setError}
        />
      )}
      <ErrorBanner error={error} />

      <section className="card" aria-labelledby="connection-heading">
        <h2 id="connection-heading" className="card-title">
          Connection
        </h2>
        <TestConnection
          server={server}
          onTested={(result) => {
            setServer(result.server);
            tools.replace(result.tools);
            void items.reload();
          }}
        />
        <ConnectionPanel server={server} />
        <ServerUrl server={server} />
      </section>

      <section className="card" aria-labelledby="state-heading">
        <h2 id="state-heading" className="card-title">
          Where it is active
        </h2>
        <p className="field-hint">Off, only in sessions on chosen projects, or in every session.</p>
        <ServerState server={server} labelledBy="state-heading" onChange={setServer} />
      </section>

      <ServerTools tools={tools} />

      <ServerItems items={items} />

      <section className="card" aria-labelledby="settings-heading">
        <h2 id="settings-heading" className="card-title">
          Settings
        </h2>
        <ServerForm key={`form-${generation}`} server={server} onSaved={saved} onConflict={() => setStale(true)} />
      </section>

      <section className="card" aria-labelledby="headers-heading">
        <h2 id="headers-heading" className="card-title">
          Headers and secrets
        </h2>
        <p className="field-hint">
          Sent with every request to the server. Values are encrypted at rest and shown only masked; type a new value to
          replace one.
        </p>
        <HeaderSecrets
          key={`headers-${generation}`}
          server={server}
          placeholders={placeholders}
          onSaved={(next, left) => {
            setPlaceholders(left);
            saved(next);
          }}
          onConflict={() => setStale(true)}
        />
      </section>

      <section className="card" aria-labelledby="remove-heading">
        <h2 id="remove-heading" className="card-title">
          Remove
        </h2>
        <div className="form-actions">
          <InlineConfirm
            action="Remove server"
            question={`Remove ${server.label}? Agents lose its tools at once.`}
            confirmLabel="Yes, remove"
            danger
            onConfirm={remove}
          />
        </div>
      </section>
    </>
  );
}

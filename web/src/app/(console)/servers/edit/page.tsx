"use client";

import Link from "next/link";
import { useSearchParams } from "next/navigation";
import { Suspense, useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { ServerPage } from "@/components/servers/server-page";
import { useSession } from "@/components/session-provider";
import { ApiError } from "@/lib/api";
import { getServer } from "@/lib/servers/client";
import { SERVERS_HREF } from "@/lib/servers/links";
import type { Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

type Load = { kind: "loading" } | { kind: "ready"; server: Server } | { kind: "failed"; error: unknown };

function NotLoaded({ slug, error, onRetry }: { slug: string; error: unknown; onRetry: () => void }) {
  const missing = !slug || (error instanceof ApiError && error.status === 404);
  return (
    <section className="card stack">
      {missing ? (
        <>
          <h1 className="page-title">Not found</h1>
          <p className="muted">
            {slug ? (
              <>
                There is no server <code>{slug}</code> in this workspace.
              </>
            ) : (
              "No server was named in the address."
            )}
          </p>
        </>
      ) : (
        <>
          <ErrorBanner error={error} />
          <button type="button" className="button" onClick={onRetry}>
            Try again
          </button>
        </>
      )}
      <Link href={SERVERS_HREF}>Back to the list</Link>
    </section>
  );
}

function LoadServer({ slug }: { slug: string }) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [load, setLoad] = useState<Load>({ kind: "loading" });

  const reload = useCallback(async () => {
    try {
      setLoad({ kind: "ready", server: await getServer(ws, slug) });
    } catch (caught) {
      if (!handleAuthError(caught)) setLoad({ kind: "failed", error: caught });
    }
  }, [ws, slug, handleAuthError]);

  useEffect(() => {
    void reload();
  }, [reload]);

  if (load.kind === "loading") return <Loading label="Loading…" />;
  if (load.kind === "failed") return <NotLoaded slug={slug} error={load.error} onRetry={() => void reload()} />;
  return <ServerPage key={load.server.id} initial={load.server} />;
}

function ServerRoute() {
  const slug = useSearchParams().get("slug") ?? "";
  if (!slug) return <NotLoaded slug="" error={null} onRetry={() => undefined} />;
  return <LoadServer key={slug} slug={slug} />;
}

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <ServerRoute />
    </Suspense>
  );
}

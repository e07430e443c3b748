"use client";

import { useRouter } from "next/navigation";
import { createContext, type ReactNode, useCallback, useContext, useEffect, useMemo, useState } from "react";
import { api, isUnauthenticated, rememberCsrfToken } from "@/lib/api";
import { signInPathFor } from "@/lib/navigation";
import type { Me } from "@/lib/types";
import { ErrorBanner } from "./error-banner";
import { Loading } from "./loading";

type Session = {
  me: Me;
  reload: () => Promise<void>;
  // Call with any API error: on a 401 (session ended) it sends the user to sign in and returns true.
  handleAuthError: (error: unknown) => boolean;
};

const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error("useSession must be used inside <SessionProvider>");
  return session;
}

type LoadState = { kind: "loading" } | { kind: "ready"; me: Me } | { kind: "failed"; error: unknown };

// Loads /v1/me once for the signed-in area; pages below it render only with a session.
export function SessionProvider({ children }: { children: ReactNode }) {
  const router = useRouter();
  const [state, setState] = useState<LoadState>({ kind: "loading" });

  const handleAuthError = useCallback(
    (error: unknown) => {
      if (!isUnauthenticated(error)) return false;
      router.replace(signInPathFor(window.location.pathname));
      return true;
    },
    [router],
  );

  const load = useCallback(async () => {
    try {
      const me = await api.get<Me>("/v1/me");
      rememberCsrfToken(me.csrfToken);
      setState({ kind: "ready", me });
    } catch (error) {
      if (!handleAuthError(error)) setState({ kind: "failed", error });
    }
  }, [handleAuthError]);

  useEffect(() => {
    void load();
  }, [load]);

  const value = useMemo<Session | null>(
    () => (state.kind === "ready" ? { me: state.me, reload: load, handleAuthError } : null),
    [state, load, handleAuthError],
  );

  if (state.kind === "failed") {
    return (
      <main className="center-page">
        <div className="stack">
          <ErrorBanner error={state.error} />
          <button
            type="button"
            className="button"
            onClick={() => {
              setState({ kind: "loading" });
              void load();
            }}
          >
            Try again
          </button>
        </div>
      </main>
    );
  }
  if (!value) {
    return (
      <main className="center-page">
        <Loading label="Loading your console…" />
      </main>
    );
  }
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

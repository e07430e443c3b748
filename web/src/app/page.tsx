"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { api, isUnauthenticated } from "@/lib/api";
import { HOME_PATH, SIGN_IN_PATH } from "@/lib/navigation";
import type { Me, SetupStatus } from "@/lib/types";

// `/` only decides where to go: the console when signed in, first-run setup, or sign-in.
export default function IndexPage() {
  const router = useRouter();
  const [error, setError] = useState<unknown>(null);

  const route = useCallback(async () => {
    setError(null);
    try {
      await api.get<Me>("/v1/me");
      router.replace(HOME_PATH);
      return;
    } catch (caught) {
      if (!isUnauthenticated(caught)) {
        setError(caught);
        return;
      }
    }
    try {
      const setup = await api.get<SetupStatus>("/v1/auth/setup");
      if (setup.required) {
        // A full load keeps the `#token=` fragment of a setup link opened at `/`.
        window.location.replace(`/setup/${window.location.hash}`);
        return;
      }
    } catch {
      // Without an answer about setup, sign-in is still the right place to go.
    }
    router.replace(SIGN_IN_PATH);
  }, [router]);

  useEffect(() => {
    void route();
  }, [route]);

  return (
    <main className="center-page">
      {error ? (
        <div className="stack">
          <ErrorBanner error={error} />
          <button type="button" className="button" onClick={() => void route()}>
            Try again
          </button>
        </div>
      ) : (
        <Loading label="Opening Loadout…" />
      )}
    </main>
  );
}

"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { AuthCard } from "@/components/auth-card";
import { type Credentials, CredentialsForm } from "@/components/credentials-form";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { api, rememberCsrfToken } from "@/lib/api";
import { setupTokenFromHash } from "@/lib/navigation";
import type { AuthResult, SetupStatus } from "@/lib/types";

type SetupState = { kind: "checking" } | { kind: "done" } | { kind: "open"; checkError: unknown };

export default function SetupPage() {
  const router = useRouter();
  const [token, setToken] = useState<string | null>(null);
  const [state, setState] = useState<SetupState>({ kind: "checking" });

  useEffect(() => {
    const readHash = () => setToken(setupTokenFromHash(window.location.hash));
    readHash();
    window.addEventListener("hashchange", readHash);
    return () => window.removeEventListener("hashchange", readHash);
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    api
      .get<SetupStatus>("/v1/auth/setup", { signal: controller.signal })
      .then((status) => setState(status.required ? { kind: "open", checkError: null } : { kind: "done" }))
      .catch((caught: unknown) => {
        if (!controller.signal.aborted) setState({ kind: "open", checkError: caught });
      });
    return () => controller.abort();
  }, []);

  const createAccount = async (credentials: Credentials) => {
    if (!token) return;
    const result = await api.post<AuthResult>("/v1/auth/setup", { token, ...credentials }, { csrf: false });
    rememberCsrfToken(result.csrfToken);
    router.replace("/tokens/");
  };

  return (
    <AuthCard
      title="Set up Loadout"
      subtitle="Create the first account on this Loadout. It becomes the owner of everything set up here."
      footer={
        <>
          Already set up? <Link href="/signin/">Sign in</Link>
        </>
      }
    >
      <title>Set up · Loadout</title>
      {state.kind === "checking" && <Loading label="Checking setup…" />}
      {state.kind === "done" && (
        <div className="banner banner-info" role="status">
          Setup is complete: this Loadout already has an account. <Link href="/signin/">Sign in</Link> instead.
        </div>
      )}
      {state.kind === "open" && (
        <>
          <ErrorBanner error={state.checkError} />
          {token ? (
            <CredentialsForm submitLabel="Create account" newAccount onSubmit={createAccount} />
          ) : (
            <div className="banner banner-info" role="status">
              Open the one-time setup link the server printed when it started. It looks like{" "}
              <code>http://host/setup/#token=…</code> and carries the token this page needs. A server started with{" "}
              <code>npm start</code> has just printed it again in its terminal.
            </div>
          )}
        </>
      )}
    </AuthCard>
  );
}

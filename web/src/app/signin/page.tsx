"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { AuthCard } from "@/components/auth-card";
import { type Credentials, CredentialsForm } from "@/components/credentials-form";
import { api, rememberCsrfToken } from "@/lib/api";
import { HOME_PATH, nextPathFromLocation, withNext } from "@/lib/navigation";
import type { AuthResult, SetupStatus } from "@/lib/types";

export default function SignInPage() {
  const router = useRouter();
  const [setupRequired, setSetupRequired] = useState(false);
  // Read after hydration: the prerendered page has no query string.
  const [signUpHref, setSignUpHref] = useState("/signup/");
  useEffect(() => setSignUpHref(withNext("/signup/")), []);

  useEffect(() => {
    const controller = new AbortController();
    api
      .get<SetupStatus>("/v1/auth/setup", { signal: controller.signal })
      .then((status) => setSetupRequired(status.required))
      .catch(() => {
        // The notice is a hint only; sign-in works without it.
      });
    return () => controller.abort();
  }, []);

  const signIn = async ({ email, password }: Credentials) => {
    const result = await api.post<AuthResult>("/v1/auth/login", { email, password }, { csrf: false });
    rememberCsrfToken(result.csrfToken);
    router.replace(nextPathFromLocation() ?? HOME_PATH);
  };

  return (
    <AuthCard
      title="Sign in"
      subtitle="Welcome back. Sign in to manage your skills, servers and tokens."
      footer={
        <>
          New to Loadout? <Link href={signUpHref}>Sign up</Link>
        </>
      }
    >
      <title>Sign in · Loadout</title>
      {setupRequired && (
        <div className="banner banner-info" role="status">
          This Loadout has no account yet. Open the one-time setup link the server printed when it started (it looks
          like <code>/setup/#token=…</code>); a server started with <code>npm start</code> has just printed it again in
          its terminal.
        </div>
      )}
      <CredentialsForm submitLabel="Sign in" newAccount={false} onSubmit={signIn} />
    </AuthCard>
  );
}

"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { AuthCard } from "@/components/auth-card";
import { type Credentials, CredentialsForm } from "@/components/credentials-form";
import { api, rememberCsrfToken } from "@/lib/api";
import { nextPathFromLocation, withNext } from "@/lib/navigation";
import type { AuthResult } from "@/lib/types";

export default function SignUpPage() {
  const router = useRouter();
  // Read after hydration: the prerendered page has no query string.
  const [signInHref, setSignInHref] = useState("/signin/");
  useEffect(() => setSignInHref(withNext("/signin/")), []);

  const signUp = async (credentials: Credentials) => {
    const result = await api.post<AuthResult>("/v1/auth/signup", credentials, { csrf: false });
    rememberCsrfToken(result.csrfToken);
    // Back where the visitor came from (the OAuth consent page, an invite link), else to the
    // first useful step: a token for an MCP client.
    router.replace(nextPathFromLocation() ?? "/tokens/");
  };

  return (
    <AuthCard
      title="Create your account"
      subtitle="One registry for your agent's skills and MCP servers, behind one MCP URL."
      footer={
        <>
          Already have an account? <Link href={signInHref}>Sign in</Link>
        </>
      }
    >
      <title>Sign up · Loadout</title>
      <CredentialsForm submitLabel="Sign up" newAccount onSubmit={signUp} />
    </AuthCard>
  );
}

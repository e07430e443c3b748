"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { AuthCard } from "@/components/auth-card";
import { type Credentials, CredentialsForm } from "@/components/credentials-form";
import { api, rememberCsrfToken } from "@/lib/api";
import { nextPathFromLocation } from "@/lib/navigation";
import type { AuthResult } from "@/lib/types";

export default function SignUpPage() {
  const router = useRouter();

  const signUp = async (credentials: Credentials) => {
    const result = await api.post<AuthResult>("/v1/auth/signup", credentials, { csrf: false });
    rememberCsrfToken(result.csrfToken);
    // Back where the visitor came from (an invite link), else to the first useful step: a token for an MCP client.
    router.replace(nextPathFromLocation() ?? "/tokens/");
  };

  return (
    <AuthCard
      title="Create your account"
      subtitle="One registry for your agent's skills and MCP servers, behind one MCP URL."
      footer={
        <>
          Already have an account? <Link href="/signin/">Sign in</Link>
        </>
      }
    >
      <title>Sign up · Loadout</title>
      <CredentialsForm submitLabel="Sign up" newAccount onSubmit={signUp} />
    </AuthCard>
  );
}

"use client";

import type { PasswordVerdict } from "@loadout/api/domain/accounts/password-strength";
import { type FormEvent, useEffect, useState } from "react";
import { splitErrorDetails } from "@/lib/form-errors";
import { ErrorBanner } from "./error-banner";
import { TextField } from "./text-field";

export type Credentials = { email: string; password: string; name?: string };

type CredentialsFormProps = {
  submitLabel: string;
  // Sign-up and setup ask for a name and show the password rule; sign-in does neither.
  newAccount: boolean;
  onSubmit: (credentials: Credentials) => Promise<void>;
};

const FIELDS = ["name", "email", "password"] as const;

type Judge = (password: string, related: string[]) => PasswordVerdict;

/**
 * The API's own strength rule, loaded when a new password is first typed: its dictionaries are too
 * large for the first page load, and sign-in never needs them.
 */
function usePasswordVerdict(enabled: boolean, password: string, related: string[]): PasswordVerdict | null {
  const [judge, setJudge] = useState<Judge | null>(null);
  const wanted = enabled && password.length > 0;
  useEffect(() => {
    if (!wanted || judge) return;
    void import("@loadout/api/domain/accounts/common-password-dictionary").then((module) =>
      setJudge(() => module.judgePassword),
    );
  }, [wanted, judge]);
  if (!wanted || !judge) return null;
  return judge(password, related);
}

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}${text.endsWith(".") ? "" : "."}`;

export function CredentialsForm({ submitLabel, newAccount, onSubmit }: CredentialsFormProps) {
  const [name, setName] = useState("");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const trimmedName = name.trim();
    try {
      await onSubmit({ email: email.trim(), password, ...(newAccount && trimmedName ? { name: trimmedName } : {}) });
    } catch (caught) {
      setError(caught);
      setPending(false);
    }
  };

  const { fields, others } = splitErrorDetails(error, FIELDS);
  const verdict = usePasswordVerdict(newAccount, password, [email, name]);
  const passwordHint = !newAccount ? undefined : verdict?.ok ? (
    <span data-testid="password-verdict">Strong enough.</span>
  ) : verdict?.problem ? (
    <span data-testid="password-verdict">{sentence(verdict.problem)}</span>
  ) : (
    "At least 10 characters, hard to guess: a few uncommon words work well."
  );

  return (
    <form className="form" onSubmit={handleSubmit} noValidate>
      <ErrorBanner error={error} details={others} />
      {newAccount && (
        <TextField
          label="Name"
          name="name"
          autoComplete="name"
          value={name}
          onChange={(event) => setName(event.target.value)}
          hint="Optional. Shown to teammates."
          error={fields.name}
        />
      )}
      <TextField
        label="Email"
        name="email"
        type="email"
        autoComplete={newAccount ? "email" : "username"}
        required
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={fields.email}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete={newAccount ? "new-password" : "current-password"}
        required
        value={password}
        onChange={(event) => setPassword(event.target.value)}
        hint={passwordHint}
        error={fields.password}
      />
      <button type="submit" className="button button-primary button-block" disabled={pending} aria-busy={pending}>
        {submitLabel}
      </button>
    </form>
  );
}

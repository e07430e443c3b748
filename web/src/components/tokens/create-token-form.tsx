"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { TextField } from "@/components/text-field";
import { api } from "@/lib/api";
import { splitErrorDetails } from "@/lib/form-errors";
import { DEFAULT_EXPIRY, DEFAULT_SCOPES, EXPIRY_OPTIONS, TOKEN_SCOPES } from "@/lib/scopes";
import type { CreatedToken, CreateTokenInput, Workspace } from "@/lib/types";

type CreateTokenFormProps = {
  workspaces: Workspace[];
  onCreated: (created: CreatedToken) => void;
  onError: (error: unknown) => boolean;
};

const FIELDS = ["name", "scopes", "expiresInDays", "workspace"] as const;

export function CreateTokenForm({ workspaces, onCreated, onError }: CreateTokenFormProps) {
  const id = useId();
  const [name, setName] = useState("");
  const [scopes, setScopes] = useState<readonly string[]>(DEFAULT_SCOPES);
  const [expiry, setExpiry] = useState<string>(DEFAULT_EXPIRY);
  const [workspace, setWorkspace] = useState("");
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const toggleScope = (scope: string, checked: boolean) => {
    setScopes((current) =>
      checked ? [...current.filter((item) => item !== scope), scope] : current.filter((item) => item !== scope),
    );
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const input: CreateTokenInput = {
      name: name.trim(),
      // Sent in the order the form lists them, whatever order they were ticked in.
      scopes: TOKEN_SCOPES.map((item) => item.scope).filter((scope) => scopes.includes(scope)),
      ...(expiry === "never" ? {} : { expiresInDays: Number(expiry) }),
      ...(workspace ? { workspace } : {}),
    };
    try {
      const created = await api.post<CreatedToken>("/v1/tokens", input);
      setName("");
      setScopes(DEFAULT_SCOPES);
      setExpiry(DEFAULT_EXPIRY);
      setWorkspace("");
      onCreated(created);
    } catch (caught) {
      if (!onError(caught)) setError(caught);
    } finally {
      setPending(false);
    }
  };

  const { fields, others } = splitErrorDetails(error, FIELDS);
  const expiryId = `${id}-expiry`;
  const workspaceId = `${id}-workspace`;

  return (
    <form className="form token-form" onSubmit={handleSubmit} noValidate>
      <ErrorBanner error={error} details={others} />
      <div className="form-row">
        <TextField
          label="Token name"
          name="name"
          required
          autoComplete="off"
          placeholder="e.g. laptop-claude-code"
          value={name}
          onChange={(event) => setName(event.target.value)}
          hint="Say where the token will be used, so you know what breaks when you revoke it."
          error={fields.name}
        />
        <div className="field">
          <label htmlFor={expiryId} className="field-label">
            Expires
          </label>
          <select
            id={expiryId}
            className="input"
            value={expiry}
            onChange={(event) => setExpiry(event.target.value)}
            aria-invalid={fields.expiresInDays ? true : undefined}
          >
            {EXPIRY_OPTIONS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          {fields.expiresInDays && <p className="field-error">{fields.expiresInDays}</p>}
        </div>
        <div className="field">
          <label htmlFor={workspaceId} className="field-label">
            Workspace
          </label>
          <select
            id={workspaceId}
            className="input"
            value={workspace}
            onChange={(event) => setWorkspace(event.target.value)}
            aria-invalid={fields.workspace ? true : undefined}
          >
            <option value="">All my workspaces</option>
            {workspaces.map((item) => (
              <option key={item.id} value={item.slug}>
                {item.kind === "personal" ? `${item.name} (personal)` : item.name}
              </option>
            ))}
          </select>
          {fields.workspace && <p className="field-error">{fields.workspace}</p>}
        </div>
      </div>

      <fieldset className="fieldset">
        <legend className="field-label">Scopes</legend>
        <div className="scope-grid">
          {TOKEN_SCOPES.map(({ scope, hint }) => {
            const inputId = `${id}-scope-${scope}`;
            return (
              <div className="scope-option" key={scope}>
                <input
                  id={inputId}
                  type="checkbox"
                  className="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(event) => toggleScope(scope, event.target.checked)}
                  aria-describedby={`${inputId}-hint`}
                />
                <div>
                  <label htmlFor={inputId} className="scope-name">
                    {scope}
                  </label>
                  <p id={`${inputId}-hint`} className="field-hint">
                    {hint}
                  </p>
                </div>
              </div>
            );
          })}
        </div>
        {fields.scopes && <p className="field-error">{fields.scopes}</p>}
      </fieldset>

      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
          Create token
        </button>
      </div>
    </form>
  );
}

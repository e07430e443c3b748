"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { ApiError } from "@/lib/api";
import { updateServer } from "@/lib/servers/client";
import type { Placeholder, Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";

type HeaderSecretsProps = {
  server: Server;
  // Headers whose stored value is still a placeholder from the paste.
  placeholders: Placeholder[];
  // Only the placeholder headers (right after an import), or every header with remove and add.
  only?: "placeholders";
  onSaved: (server: Server, placeholdersLeft: Placeholder[]) => void;
  onConflict: () => void;
};

// Header values are write-only: a password field per header, sent once, shown afterwards only masked.
export function HeaderSecrets({ server, placeholders, only, onSaved, onConflict }: HeaderSecretsProps) {
  const ws = useWorkspace();
  const id = useId();
  const { handleAuthError } = useSession();
  const [values, setValues] = useState<Record<string, string>>({});
  const [removed, setRemoved] = useState<ReadonlySet<string>>(new Set());
  const [newName, setNewName] = useState("");
  const [newValue, setNewValue] = useState("");
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState<string | null>(null);

  const waiting = new Map(placeholders.map((item) => [item.header.toLowerCase(), item.placeholder]));
  const names =
    only === "placeholders" ? [...new Set(placeholders.map((item) => item.header))] : Object.keys(server.headers);

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setStatus(null);
    setError(null);
    const headers: Record<string, string | null> = {};
    for (const name of names) {
      if (removed.has(name)) headers[name] = null;
      else if (values[name]) headers[name] = values[name];
    }
    const added = newName.trim();
    if (added) {
      if (!newValue) {
        setStatus(`Enter a value for ${added}.`);
        return;
      }
      headers[added] = newValue;
    }
    if (Object.keys(headers).length === 0) {
      setStatus("Enter a value first.");
      return;
    }
    setSaving(true);
    try {
      const saved = await updateServer(ws, server.slug, { revision: server.revision, headers });
      const left = saved.placeholders;
      setValues({});
      setRemoved(new Set());
      setNewName("");
      setNewValue("");
      setStatus("Saved. Values are stored encrypted and shown only masked.");
      onSaved(saved, left);
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) onConflict();
      else setError(caught);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="form header-secrets" onSubmit={save} noValidate aria-label={`Headers of ${server.label}`}>
      {names.length === 0 && <p className="muted">This server sends no headers.</p>}
      {names.map((name, index) => {
        const placeholder = waiting.get(name.toLowerCase());
        const inputId = `${id}-${index}`;
        return (
          <div key={name} className={`header-row${removed.has(name) ? " row-removed" : ""}`}>
            <div className="header-name">
              <label htmlFor={inputId} className="field-label">
                <span className="visually-hidden">New value for </span>
                <code>{name}</code>
              </label>
              {placeholder ? (
                <span className="chip chip-warning" title={`The pasted value holds ${placeholder}`}>
                  needs a value
                </span>
              ) : (
                server.headers[name] && (
                  <span className="header-masked" title="Stored encrypted; shown masked">
                    {server.headers[name]}
                  </span>
                )
              )}
            </div>
            <input
              id={inputId}
              type="password"
              className="input input-mono"
              autoComplete="off"
              spellCheck={false}
              placeholder={placeholder ? `Replaces ${placeholder}` : "Type a new value to replace it"}
              value={values[name] ?? ""}
              disabled={removed.has(name)}
              onChange={(event) => {
                const value = event.target.value;
                setValues((current) => ({ ...current, [name]: value }));
              }}
            />
            {only !== "placeholders" && (
              <label className="check-option header-remove">
                <input
                  type="checkbox"
                  className="checkbox"
                  checked={removed.has(name)}
                  onChange={(event) => {
                    const flag = event.target.checked;
                    setRemoved((current) => {
                      const next = new Set(current);
                      if (flag) next.add(name);
                      else next.delete(name);
                      return next;
                    });
                  }}
                />
                Remove <span className="visually-hidden">{name}</span>
              </label>
            )}
          </div>
        );
      })}
      {only !== "placeholders" && (
        <fieldset className="fieldset header-add">
          <legend className="field-label">Add a header</legend>
          <div className="header-row">
            <input
              aria-label="New header name"
              className="input input-mono"
              autoComplete="off"
              spellCheck={false}
              placeholder="Authorization"
              value={newName}
              onChange={(event) => setNewName(event.target.value)}
            />
            <input
              aria-label="New header value"
              type="password"
              className="input input-mono"
              autoComplete="off"
              spellCheck={false}
              placeholder="Bearer …"
              value={newValue}
              onChange={(event) => setNewValue(event.target.value)}
            />
          </div>
        </fieldset>
      )}
      <ErrorBanner error={error} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={saving} aria-busy={saving}>
          {only === "placeholders" ? "Save secrets" : "Save headers"}
        </button>
        <p className="form-status" role="status">
          {status}
        </p>
      </div>
    </form>
  );
}

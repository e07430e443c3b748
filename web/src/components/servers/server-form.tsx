"use client";

import { type FormEvent, useId, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { FieldErrors } from "@/components/skills/field-errors";
import { TextField } from "@/components/text-field";
import { ApiError } from "@/lib/api";
import { updateServer } from "@/lib/servers/client";
import { draftOf, type EditDraft, type EditErrors, editFromDraft, placeEditErrors } from "@/lib/servers/edit-form";
import type { Server, ServerTransport } from "@/lib/servers/types";
import { useUnsavedWarning } from "@/lib/unsaved";
import { useWorkspace } from "@/lib/workspace";

const TRANSPORTS: { value: ServerTransport; label: string; hint: string }[] = [
  { value: "streamable-http", label: "Streamable HTTP", hint: "The current MCP transport; most servers" },
  { value: "sse", label: "HTTP+SSE (legacy)", hint: "The 2024 transport, for servers that have not moved on" },
];

type ServerFormProps = {
  server: Server;
  onSaved: (server: Server) => void;
  onConflict: () => void;
};

// Label, description, URL, transport and call timeout. Changing the URL or transport resets the connection.
export function ServerForm({ server, onSaved, onConflict }: ServerFormProps) {
  const ws = useWorkspace();
  const id = useId();
  const { me, handleAuthError } = useSession();
  const [draft, setDraft] = useState<EditDraft>(() => draftOf(server));
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState<string | null>(null);

  const { edit, changed, errors: local } = editFromDraft(server, draft);
  useUnsavedWarning(changed && !saving);
  const placed = placeEditErrors(error);
  const errors: EditErrors = { ...(attempted ? local : {}), ...placed.fields };

  const set = <K extends keyof EditDraft>(key: K, value: EditDraft[K]) => {
    setDraft((current) => ({ ...current, [key]: value }));
    setStatus(null);
  };

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAttempted(true);
    setStatus(null);
    if (Object.keys(local).length > 0) return;
    if (!changed) {
      setStatus("Nothing has changed since the last save.");
      return;
    }
    setSaving(true);
    setError(null);
    try {
      const saved = await updateServer(ws, server.slug, edit);
      onSaved(saved);
      setDraft(draftOf(saved));
      setAttempted(false);
      const reset = edit.url !== undefined || edit.transport !== undefined;
      setStatus(reset ? "Saved. The connection was reset: press Test to check it." : "Saved.");
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) onConflict();
      else setError(caught);
    } finally {
      setSaving(false);
    }
  };

  return (
    <form className="form server-form" onSubmit={save} noValidate aria-label="Server settings">
      <ErrorBanner error={error} details={placed.others} />
      <TextField
        label="Label"
        value={draft.label}
        maxLength={100}
        onChange={(event) => set("label", event.target.value)}
        error={errors.label}
      />
      <div className="field">
        <label htmlFor={`${id}-description`} className="field-label">
          Description
        </label>
        <textarea
          id={`${id}-description`}
          className="input textarea"
          rows={2}
          value={draft.description}
          onChange={(event) => set("description", event.target.value)}
          aria-invalid={errors.description ? true : undefined}
          aria-describedby={errors.description ? `${id}-description-error` : undefined}
        />
        <FieldErrors id={`${id}-description-error`} messages={errors.description ? [errors.description] : undefined} />
      </div>
      <TextField
        label="URL"
        type="url"
        className="input input-mono"
        spellCheck={false}
        autoComplete="off"
        value={draft.url}
        onChange={(event) => set("url", event.target.value)}
        hint={
          server.urlMasked
            ? "It holds a secret, shown as ••••. Leave it as it is to keep it; to change the URL, paste it whole. Changing it drops the connection and the cached tool list."
            : me.instance.loopbackUpstreams
              ? "An https URL, or http on this machine: this Loadout runs with LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1. Changing it drops the connection and the cached tool list."
              : "A public https URL only; for a server on this machine, start Loadout with LOADOUT_ALLOW_LOOPBACK_UPSTREAMS=1. Changing it drops the connection and the cached tool list."
        }
        error={errors.url}
      />
      <fieldset className="fieldset">
        <legend className="field-label">Transport</legend>
        <div className="segmented">
          {TRANSPORTS.map((option) => (
            <span key={option.value} className="segment">
              <input
                id={`${id}-${option.value}`}
                type="radio"
                name={`${id}-transport`}
                className="segment-input"
                checked={draft.transport === option.value}
                onChange={() => set("transport", option.value)}
              />
              <label htmlFor={`${id}-${option.value}`} className="segment-label" title={option.hint}>
                {option.label}
              </label>
            </span>
          ))}
        </div>
        <FieldErrors id={`${id}-transport-error`} messages={errors.transport ? [errors.transport] : undefined} />
      </fieldset>
      <TextField
        label="Call timeout (seconds)"
        type="number"
        inputMode="numeric"
        min={1}
        max={600}
        className="input field-narrow"
        value={draft.timeoutSeconds}
        onChange={(event) => set("timeoutSeconds", event.target.value)}
        hint="How long one tool call may take before the agent is told it timed out (and to check before retrying)."
        error={errors.callTimeoutMs}
      />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={saving} aria-busy={saving}>
          Save
        </button>
        <p className="form-status" role="status">
          {status}
        </p>
      </div>
    </form>
  );
}

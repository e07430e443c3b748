"use client";

import Link from "next/link";
import { type FormEvent, useEffect, useId, useRef, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { FieldErrors } from "@/components/skills/field-errors";
import { splitErrorDetails } from "@/lib/form-errors";
import { importServers } from "@/lib/servers/client";
import { serverHref } from "@/lib/servers/links";
import type { ImportedServer, ImportResult, Server } from "@/lib/servers/types";
import { useWorkspace } from "@/lib/workspace";
import { HeaderSecrets } from "./header-secrets";

const EXAMPLE = `{
  "mcpServers": {
    "linear": { "url": "https://mcp.linear.app/mcp" },
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": { "Authorization": "Bearer \${env:GITHUB_TOKEN}" }
    }
  }
}`;

type ImportDialogProps = {
  onImported: (servers: Server[]) => void;
  onClose: () => void;
};

function ImportedEntry({ entry, onSaved }: { entry: ImportedServer; onSaved: (server: Server) => void }) {
  const ws = useWorkspace();
  const [server, setServer] = useState<Server>(entry);
  const [left, setLeft] = useState(entry.placeholders);
  const [stale, setStale] = useState(false);
  return (
    <li className="import-entry import-imported" data-testid="import-imported">
      <p>
        <span className="status status-active">Imported</span> <strong>{entry.label}</strong> as{" "}
        <Link href={serverHref(ws, entry.slug)}>
          <code>{entry.slug}</code>
        </Link>
        {!entry.enabled && <span className="muted"> (off, as the paste said)</span>}
      </p>
      {left.length > 0 && (
        <div className="import-placeholders">
          <p>
            {left.length === 1 ? "A header holds a placeholder" : "Some headers hold placeholders"}:{" "}
            {left.map((item) => (
              <span key={`${item.header}:${item.placeholder}`} className="placeholder-item">
                <code>{item.header}</code> has <code>{item.placeholder}</code>{" "}
              </span>
            ))}
            — enter the real values, or set them later on the server&apos;s page.
          </p>
          {stale ? (
            <p className="row-notice" role="alert">
              The server changed since the import; enter the values on{" "}
              <Link href={serverHref(ws, entry.slug)}>its page</Link>.
            </p>
          ) : (
            <HeaderSecrets
              server={server}
              placeholders={left}
              only="placeholders"
              onSaved={(saved, remaining) => {
                setServer(saved);
                setLeft(remaining);
                onSaved(saved);
              }}
              onConflict={() => setStale(true)}
            />
          )}
        </div>
      )}
      {entry.placeholders.length > 0 && left.length === 0 && <p className="muted">Secrets saved.</p>}
    </li>
  );
}

// The paste dialog: an mcpServers block in, one line per entry out — imported, or skipped and why.
export function ImportDialog({ onImported, onClose }: ImportDialogProps) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const headingId = useId();
  const fieldId = useId();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [text, setText] = useState("");
  const [attempted, setAttempted] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<ImportResult | null>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAttempted(true);
    if (!text.trim()) return;
    setPending(true);
    setError(null);
    try {
      const answer = await importServers(ws, text);
      setResult(answer);
      if (answer.imported.length > 0) onImported(answer.imported);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setPending(false);
    }
  };

  const { fields, others } = splitErrorDetails(error, ["text"] as const);
  const textErrors = [
    ...(attempted && !text.trim() ? ["Paste an mcpServers block."] : []),
    ...(fields.text ? [fields.text] : []),
  ];

  return (
    <dialog
      ref={dialogRef}
      className="dialog import-dialog"
      aria-labelledby={headingId}
      data-testid="import-dialog"
      onCancel={(event) => {
        event.preventDefault();
        onClose();
      }}
    >
      <div className="dialog-body">
        <h2 id={headingId} className="card-title">
          Paste servers
        </h2>
        {result === null ? (
          <form id={`${fieldId}-form`} className="form" onSubmit={submit} noValidate>
            <div className="field">
              <label htmlFor={fieldId} className="field-label">
                mcpServers block
              </label>
              <textarea
                id={fieldId}
                className="input textarea textarea-code"
                rows={14}
                spellCheck={false}
                placeholder={EXAMPLE}
                value={text}
                onChange={(event) => setText(event.target.value)}
                aria-invalid={textErrors.length > 0 ? true : undefined}
                aria-describedby={`${fieldId}-hint ${fieldId}-error`}
              />
              <p id={`${fieldId}-hint`} className="field-hint">
                From Claude, Cursor, VS Code, Windsurf, Gemini CLI or Zed: the whole config, its <code>mcpServers</code>{" "}
                (or <code>servers</code>) block, or one server. Remote servers only; at most 32 at a time.
              </p>
              <FieldErrors id={`${fieldId}-error`} messages={textErrors.length > 0 ? textErrors : undefined} />
            </div>
            <ErrorBanner error={error} details={others} />
          </form>
        ) : (
          <div className="stack" data-testid="import-result">
            <p role="status">
              {result.imported.length} imported, {result.skipped.length} skipped.
            </p>
            <ul className="import-entries">
              {result.imported.map((entry) => (
                <ImportedEntry key={entry.id} entry={entry} onSaved={(server) => onImported([server])} />
              ))}
              {result.skipped.map((entry) => (
                <li
                  key={`${entry.name}:${entry.reason}`}
                  className="import-entry import-skipped"
                  data-testid="import-skipped"
                >
                  <span className="status status-revoked">Skipped</span> <strong>{entry.name || "(unnamed)"}</strong>:{" "}
                  {entry.reason}
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
      <div className="dialog-actions">
        {result === null ? (
          <>
            <button type="button" className="button button-ghost" onClick={onClose}>
              Cancel
            </button>
            <button
              type="submit"
              form={`${fieldId}-form`}
              className="button button-primary"
              disabled={pending}
              aria-busy={pending}
            >
              Import
            </button>
          </>
        ) : (
          <>
            <button
              type="button"
              className="button"
              onClick={() => {
                setResult(null);
                setText("");
                setAttempted(false);
              }}
            >
              Paste more
            </button>
            <button type="button" className="button button-primary" onClick={onClose}>
              Done
            </button>
          </>
        )}
      </div>
    </dialog>
  );
}

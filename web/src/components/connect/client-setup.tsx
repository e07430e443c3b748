"use client";

import Link from "next/link";
import { type KeyboardEvent, type ReactNode, useEffect, useId, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { TextField } from "@/components/text-field";
import { createMcpToken, TOKEN_DAYS } from "@/lib/connect/client";
import {
  CLIENTS,
  type ClientId,
  type ClientInfo,
  connectionFor,
  snippetFor,
  TOKEN_PLACEHOLDER,
} from "@/lib/connect/snippets";
import type { CreatedToken } from "@/lib/types";

const NOTES: Record<ClientId, ReactNode> = {
  "claude-code": (
    <>
      Run it in a terminal, in your project&apos;s folder: Claude Code keeps the server for that project. Add{" "}
      <code>--scope user</code> to have it in every project.
    </>
  ),
  cursor: (
    <>
      Put it in <code>~/.cursor/mcp.json</code> for every project, or in <code>.cursor/mcp.json</code> inside one. If
      the file lists other servers, add the <code>loadout</code> entry next to them.
    </>
  ),
  vscode: (
    <>
      Put it in <code>.vscode/mcp.json</code> in your workspace, next to any other servers. Keep a file that holds a
      token out of version control.
    </>
  ),
  codex: (
    <>
      Add it to <code>~/.codex/config.toml</code>.
    </>
  ),
  other: (
    <>
      For clients configured with an <code>mcpServers</code> JSON whose entries take a <code>url</code> and{" "}
      <code>headers</code>. Where that file lives depends on the client.
    </>
  ),
};

function clientInfo(id: ClientId): ClientInfo {
  const found = CLIENTS.find((item) => item.id === id);
  if (!found) throw new Error(`Unknown client ${id}`);
  return found;
}

export function ClientSetup({ mcpUrl }: { mcpUrl: string }) {
  const id = useId();
  const { handleAuthError } = useSession();
  const [client, setClient] = useState<ClientId>("claude-code");
  const [project, setProject] = useState("");
  const [plan, setPlan] = useState(false);
  // One token per tab: a token made on the Claude Code tab is named for Claude Code, so the VS Code
  // tab offers its own rather than showing that one in its snippet.
  const [createdFor, setCreatedFor] = useState<Partial<Record<ClientId, CreatedToken>>>({});
  const created = createdFor[client] ?? null;
  const setCreated = (token: CreatedToken | null) =>
    setCreatedFor((all) => {
      const { [client]: _dropped, ...rest } = all;
      return token ? { ...rest, [client]: token } : rest;
    });
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const tabRefs = useRef(new Map<ClientId, HTMLButtonElement>());
  const snippetRef = useRef<HTMLElement>(null);
  const noticeRef = useRef<HTMLElement>(null);

  const info = clientInfo(client);
  const options = { url: mcpUrl, token: created?.secret ?? null, project, plan };
  const snippet = snippetFor(client, options);
  const { projectInUrl } = connectionFor(options);

  useEffect(() => {
    if (created) noticeRef.current?.focus();
  }, [created]);

  const select = (next: ClientId, focus: boolean) => {
    setClient(next);
    if (focus) tabRefs.current.get(next)?.focus();
  };

  // Arrow keys move between the tabs, as in any tab list; only the selected tab is in the Tab order.
  const onTabKey = (event: KeyboardEvent<HTMLDivElement>) => {
    const index = CLIENTS.findIndex((item) => item.id === client);
    const last = CLIENTS.length - 1;
    const nextIndex =
      event.key === "ArrowRight"
        ? index === last
          ? 0
          : index + 1
        : event.key === "ArrowLeft"
          ? index === 0
            ? last
            : index - 1
          : event.key === "Home"
            ? 0
            : event.key === "End"
              ? last
              : null;
    const next = nextIndex === null ? undefined : CLIENTS[nextIndex];
    if (!next) return;
    event.preventDefault();
    select(next.id, true);
  };

  const createToken = async () => {
    setPending(true);
    setError(null);
    try {
      setCreated(await createMcpToken(info.tokenName));
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setPending(false);
    }
  };

  return (
    <>
      <div className="tabs client-tabs" role="tablist" aria-label="Client" onKeyDown={onTabKey}>
        {CLIENTS.map((item) => (
          <button
            key={item.id}
            id={`${id}-tab-${item.id}`}
            ref={(element) => {
              if (element) tabRefs.current.set(item.id, element);
              else tabRefs.current.delete(item.id);
            }}
            type="button"
            role="tab"
            className="tab"
            aria-selected={item.id === client}
            aria-controls={`${id}-panel`}
            tabIndex={item.id === client ? 0 : -1}
            onClick={() => select(item.id, false)}
          >
            {item.label}
          </button>
        ))}
      </div>

      <div id={`${id}-panel`} role="tabpanel" aria-labelledby={`${id}-tab-${client}`} className="client-panel">
        <p className="muted">{NOTES[client]}</p>

        <div className="connect-options">
          <TextField
            label="Project path"
            name="project"
            autoComplete="off"
            spellCheck={false}
            placeholder="e.g. /home/ada/code/shop"
            value={project}
            onChange={(event) => setProject(event.target.value)}
            hint={
              projectInUrl ? (
                <>
                  This path has characters an HTTP header cannot carry, so it goes in the URL as <code>?project=</code>.
                </>
              ) : (
                <>
                  Optional. Adds <code>X-Loadout-Project</code>: items scoped to this project (or a folder above it)
                  become active.
                </>
              )
            }
          />
          <div className="check-option">
            <input
              id={`${id}-plan`}
              type="checkbox"
              className="checkbox"
              checked={plan}
              onChange={(event) => setPlan(event.target.checked)}
              aria-describedby={`${id}-plan-hint`}
            />
            <div>
              <label htmlFor={`${id}-plan`} className="field-label">
                Plan mode
              </label>
              <p id={`${id}-plan-hint`} className="field-hint">
                Adds <code>X-Loadout-Mode: plan</code>: read-only tools only.
              </p>
            </div>
          </div>
        </div>

        {created ? (
          <section
            className="secret-box"
            aria-labelledby={`${id}-secret-heading`}
            ref={noticeRef}
            tabIndex={-1}
            data-testid="snippet-token-notice"
          >
            <div className="secret-header">
              <h3 id={`${id}-secret-heading`} className="secret-title">
                Token “{created.token.name}” created
              </h3>
              <button type="button" className="button button-small button-ghost" onClick={() => setCreated(null)}>
                Dismiss
              </button>
            </div>
            <p className="secret-warning">
              The snippet below holds its secret. Copy it now: it won&apos;t be shown again, Loadout stores only a hash
              of it.
            </p>
            <p className="field-hint">
              It has the <code>mcp</code> scope and expires in {TOKEN_DAYS} days. Revoke it on the{" "}
              <Link href="/tokens/">Tokens</Link> page.
            </p>
          </section>
        ) : (
          <p className="field-hint">
            Replace <code>{TOKEN_PLACEHOLDER}</code> with a token that has the <code>mcp</code> scope (see{" "}
            <Link href="/tokens/">Tokens</Link>), or create one for {info.id === "other" ? "this client" : info.label}{" "}
            now: it is named after the client and today, and expires in {TOKEN_DAYS} days.
          </p>
        )}
        <ErrorBanner error={error} />
        <div className="form-actions">
          <button
            type="button"
            className={created ? "button" : "button button-primary"}
            onClick={() => void createToken()}
            disabled={pending}
            aria-busy={pending}
          >
            {created ? "Create another token" : "Create a token for this"}
          </button>
        </div>

        <div className="snippet">
          <div className="snippet-header">
            <span className="snippet-target">{info.target}</span>
            <CopyButton
              text={snippet}
              label={`Copy the ${info.label} snippet`}
              target={snippetRef}
              className="button button-small"
            />
          </div>
          <pre className="snippet-code">
            <code ref={snippetRef} className="snippet-text" data-testid="client-snippet">
              {snippet}
            </code>
          </pre>
        </div>
      </div>
    </>
  );
}

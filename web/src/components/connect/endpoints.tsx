"use client";

import { type FormEvent, useId, useRef, useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { InlineConfirm } from "@/components/skills/inline-confirm";
import { TextField } from "@/components/text-field";
import { createEndpoint, deleteEndpoint } from "@/lib/connect/client";
import type { CreateEndpointInput, Endpoint, ListingEstimate, McpMode, ToolEstimates } from "@/lib/connect/types";
import { splitErrorDetails } from "@/lib/form-errors";
import { formatDateTime } from "@/lib/format";
import { DataTable } from "../data-table";
import { ToolEstimate } from "./tool-estimate";

export const MODES: { value: McpMode; label: string }[] = [
  { value: "agent", label: "agent: every tool" },
  { value: "plan", label: "plan: read-only tools" },
  { value: "goal", label: "goal: read-only tools" },
];

const FIELDS = ["name", "project", "mode", "searchFetch", "lazyTools"] as const;

type EndpointFormProps = { onSaved: (endpoint: Endpoint) => void };

export function EndpointForm({ onSaved }: EndpointFormProps) {
  const id = useId();
  const { handleAuthError } = useSession();
  const [name, setName] = useState("");
  const [project, setProject] = useState("");
  const [mode, setMode] = useState<McpMode>("agent");
  const [searchFetch, setSearchFetch] = useState(false);
  const [lazyTools, setLazyTools] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    const input: CreateEndpointInput = {
      name: name.trim(),
      ...(project.trim() ? { project: project.trim() } : {}),
      mode,
      searchFetch,
      lazyTools,
    };
    try {
      const saved = await createEndpoint(input);
      setName("");
      setProject("");
      setMode("agent");
      setSearchFetch(false);
      setLazyTools(false);
      onSaved(saved);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setPending(false);
    }
  };

  const { fields, others } = splitErrorDetails(error, FIELDS);

  return (
    <form className="form" onSubmit={submit} noValidate aria-label="New endpoint">
      <ErrorBanner error={error} details={others} />
      <div className="form-row">
        <TextField
          label="Name"
          name="name"
          required
          autoComplete="off"
          placeholder="e.g. shop, plan mode"
          maxLength={64}
          value={name}
          onChange={(event) => setName(event.target.value)}
          error={fields.name}
        />
        <TextField
          label="Project path"
          name="project"
          autoComplete="off"
          spellCheck={false}
          placeholder="e.g. /home/ada/code/shop"
          value={project}
          onChange={(event) => setProject(event.target.value)}
          hint="Optional. Stored lowercase, with forward slashes."
          error={fields.project}
        />
        <div className="field">
          <label htmlFor={`${id}-mode`} className="field-label">
            Mode
          </label>
          <select
            id={`${id}-mode`}
            className="input"
            value={mode}
            onChange={(event) => setMode(event.target.value as McpMode)}
            aria-invalid={fields.mode ? true : undefined}
          >
            {MODES.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
          {fields.mode && <p className="field-error">{fields.mode}</p>}
        </div>
      </div>
      <div className="check-option">
        <input
          id={`${id}-search-fetch`}
          type="checkbox"
          className="checkbox"
          checked={searchFetch}
          onChange={(event) => setSearchFetch(event.target.checked)}
          aria-describedby={`${id}-search-fetch-hint`}
        />
        <div>
          <label htmlFor={`${id}-search-fetch`} className="field-label">
            Offer search and fetch (ChatGPT)
          </label>
          <p id={`${id}-search-fetch-hint`} className="field-hint">
            Adds the <code>search</code> and <code>fetch</code> tools ChatGPT uses outside developer mode.
            {fields.searchFetch && <span className="field-error"> {fields.searchFetch}</span>}
          </p>
        </div>
      </div>
      <div className="check-option">
        <input
          id={`${id}-lazy-tools`}
          type="checkbox"
          className="checkbox"
          checked={lazyTools}
          onChange={(event) => setLazyTools(event.target.checked)}
          aria-describedby={`${id}-lazy-tools-hint`}
        />
        <div>
          <label htmlFor={`${id}-lazy-tools`} className="field-label">
            Lazy tools
          </label>
          <p id={`${id}-lazy-tools-hint`} className="field-hint">
            Lists <code>find_tools</code> and <code>call_tool</code> instead of every remote server tool, so a client
            with many servers spends fewer tokens each turn (the same as adding <code>?tools=lazy</code> to a URL).
            {fields.lazyTools && <span className="field-error"> {fields.lazyTools}</span>}
          </p>
        </div>
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
          Save endpoint
        </button>
      </div>
    </form>
  );
}

type EndpointTableProps = {
  endpoints: Endpoint[] | null;
  listError: unknown;
  origin: string;
  estimates: ToolEstimates | null;
  onRetry: () => void;
  onDeleted: () => void;
};

export function EndpointTable({ endpoints, listError, origin, estimates, onRetry, onDeleted }: EndpointTableProps) {
  const { handleAuthError } = useSession();
  const [deleteError, setDeleteError] = useState<unknown>(null);

  const remove = async (endpoint: Endpoint) => {
    setDeleteError(null);
    try {
      await deleteEndpoint(endpoint.id);
    } catch (caught) {
      if (!handleAuthError(caught)) setDeleteError(caught);
    }
    onDeleted();
  };

  if (listError) {
    return (
      <div className="stack">
        <ErrorBanner error={listError} />
        <button type="button" className="button" onClick={onRetry}>
          Try again
        </button>
      </div>
    );
  }
  if (endpoints === null) return <Loading label="Loading endpoints…" />;
  if (endpoints.length === 0) {
    return (
      <div className="empty-state">
        <p className="empty-title">No saved endpoints yet</p>
        <p>Save one above to get a URL that pins a project and a mode.</p>
      </div>
    );
  }
  return (
    <>
      <ErrorBanner error={deleteError} />
      <DataTable
        className="connect-table endpoint-table"
        columns={["Name", "Project", "Mode", "Tool tokens", "URL", { label: "Actions", hidden: true }]}
      >
        {endpoints.map((endpoint) => (
          <EndpointRow
            key={endpoint.id}
            endpoint={endpoint}
            origin={origin}
            estimate={estimates?.endpoints.find((e) => e.id === endpoint.id) ?? null}
            onDelete={remove}
          />
        ))}
      </DataTable>
    </>
  );
}

type EndpointRowProps = {
  endpoint: Endpoint;
  origin: string;
  estimate: ListingEstimate | null;
  onDelete: (endpoint: Endpoint) => Promise<void>;
};

function EndpointRow({ endpoint, origin, estimate, onDelete }: EndpointRowProps) {
  const url = `${origin}${endpoint.path}`;
  const urlRef = useRef<HTMLElement>(null);
  return (
    <tr data-testid="endpoint-row">
      <th scope="row" data-label="Name">
        <span className="endpoint-name" title={`Saved ${formatDateTime(endpoint.createdAt)}`}>
          {endpoint.name}
        </span>
      </th>
      <td data-label="Project">
        {endpoint.project ? (
          <code className="connect-path">{endpoint.project}</code>
        ) : (
          <span className="muted">None</span>
        )}
      </td>
      <td data-label="Mode">
        <ul className="chips" aria-label="Mode and tools">
          <li className="chip" data-testid="endpoint-mode">
            {endpoint.mode}
          </li>
          {endpoint.searchFetch && <li className="chip">search + fetch</li>}
          {endpoint.lazyTools && <li className="chip">lazy tools</li>}
        </ul>
      </td>
      <td data-label="Tool tokens">
        {estimate ? <ToolEstimate estimate={estimate} testId="endpoint-tokens" /> : <span className="muted">—</span>}
      </td>
      <td data-label="URL" className="endpoint-url-cell">
        <div className="connector-value">
          <code ref={urlRef} className="connector-code endpoint-url" data-testid="endpoint-url">
            {url}
          </code>
          <CopyButton
            text={url}
            label={`Copy the URL of ${endpoint.name}`}
            target={urlRef}
            className="button button-small"
          />
        </div>
      </td>
      <td className="row-actions">
        <InlineConfirm
          action="Delete"
          question="Delete? Clients using this URL stop working."
          confirmLabel="Yes, delete"
          danger
          onConfirm={() => onDelete(endpoint)}
        />
      </td>
    </tr>
  );
}

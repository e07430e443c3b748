"use client";

import { type FormEvent, useCallback, useEffect, useState } from "react";
import { EventTable } from "@/components/activity/event-table";
import { UsageChart } from "@/components/activity/usage-chart";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { TextField } from "@/components/text-field";
import { api } from "@/lib/api";
import type { ActivityEvent, ActivityPage, Usage } from "@/lib/teams/types";
import { useCurrentWorkspace } from "@/lib/workspace";

type Filters = { kind: string; actor: string; item: string; from: string; to: string };
const NO_FILTERS: Filters = { kind: "", actor: "", item: "", from: "", to: "" };

const KINDS = [
  ["", "Everything"],
  ["call", "MCP calls"],
  ["change", "Changes"],
  ["skill", "Skills"],
  ["persona", "Personas"],
  ["server", "Servers"],
  ["member", "Members"],
  ["invite", "Invites"],
  ["token", "Tokens"],
] as const;

function query(filters: Filters, cursor: string | null): string {
  const params = new URLSearchParams({ limit: "50" });
  if (filters.kind) params.set("kind", filters.kind);
  if (filters.actor.trim()) params.set("actor", filters.actor.trim());
  if (filters.item.trim()) params.set("item", filters.item.trim());
  // Dates picked are whole days in the viewer's time zone: from its start, to the end of the "to" day.
  if (filters.from) params.set("from", new Date(`${filters.from}T00:00:00`).toISOString());
  if (filters.to) params.set("to", new Date(new Date(`${filters.to}T00:00:00`).getTime() + 86_400_000).toISOString());
  if (cursor) params.set("cursor", cursor);
  return params.toString();
}

function UsageView({ path }: { path: string }) {
  const { handleAuthError } = useSession();
  const [usage, setUsage] = useState<Usage | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [by, setBy] = useState<"clients" | "tools">("clients");

  useEffect(() => {
    api
      .get<Usage>(`${path}/activity/usage?days=30`)
      .then(setUsage)
      .catch((caught: unknown) => {
        if (!handleAuthError(caught)) setError(caught);
      });
  }, [path, handleAuthError]);

  if (error) return <ErrorBanner error={error} />;
  if (!usage) return <Loading label="Counting calls…" />;
  const total = usage.days.reduce((n, d) => n + d.calls, 0);
  const o = usage.outcomes;
  const tiles = [
    ["Calls", total],
    ["Errors", o.error + o.tool_error],
    ["Not active for the session", o.not_active],
    ["Refused in plan mode", o.plan_refused],
    ["Withheld by a pin", o.withheld],
  ] as const;
  return (
    <div className="stack">
      <div className="tiles" data-testid="usage-tiles">
        {tiles.map(([label, value]) => (
          <div key={label} className="tile">
            <div className="tile-value">{value}</div>
            <div className="tile-label">{label}</div>
          </div>
        ))}
      </div>
      <div className="segmented" role="radiogroup" aria-label="Break calls down by">
        {(["clients", "tools"] as const).map((option) => (
          <button
            key={option}
            type="button"
            className="button button-small"
            aria-pressed={by === option}
            onClick={() => setBy(option)}
          >
            By {option === "clients" ? "client" : "tool"}
          </button>
        ))}
      </div>
      {total === 0 ? (
        <p className="muted">No MCP calls in the last 30 days.</p>
      ) : (
        <UsageChart
          dates={usage.days.map((d) => d.date)}
          series={usage[by]}
          label={`Calls per day by ${by === "clients" ? "client" : "tool"}, ${usage.from} to ${usage.to}`}
        />
      )}
    </div>
  );
}

export default function ActivityPageView() {
  const { handleAuthError } = useSession();
  const { ws, workspace } = useCurrentWorkspace();
  const path = `/v1/workspaces/${encodeURIComponent(ws)}`;
  const [draft, setDraft] = useState<Filters>(NO_FILTERS);
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [events, setEvents] = useState<ActivityEvent[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  const load = useCallback(
    async (next: string | null) => {
      try {
        const page = await api.get<ActivityPage>(`${path}/activity?${query(filters, next)}`);
        setEvents((current) => (next && current ? [...current, ...page.events] : page.events));
        setCursor(page.nextCursor);
        setError(null);
      } catch (caught) {
        if (!handleAuthError(caught)) setError(caught);
      }
    },
    [path, filters, handleAuthError],
  );

  useEffect(() => {
    setEvents(null);
    void load(null);
  }, [load]);

  const apply = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFilters(draft);
  };

  const set = (key: keyof Filters) => (value: string) => setDraft((current) => ({ ...current, [key]: value }));

  return (
    <>
      <title>Activity · Loadout</title>
      <header className="page-header">
        <h1 className="page-title">Activity</h1>
        <p className="page-lead">
          {workspace?.kind === "team" ? `Team ${workspace.slug}` : "Your personal workspace"}: who changed what, and
          which client called which tool through your MCP URL, how it ended and how long it took.
        </p>
      </header>

      <section className="card" aria-labelledby="usage-heading">
        <h2 id="usage-heading" className="card-title">
          Calls in the last 30 days
        </h2>
        <UsageView path={path} />
      </section>

      <section className="card" aria-labelledby="events-heading">
        <h2 id="events-heading" className="card-title">
          Events
        </h2>
        <form className="form" onSubmit={apply} aria-label="Filter events">
          <div className="filters-grid">
            <div className="field">
              <label htmlFor="activity-kind" className="field-label">
                Kind
              </label>
              <select
                id="activity-kind"
                className="input"
                value={draft.kind}
                onChange={(event) => set("kind")(event.target.value)}
              >
                {KINDS.map(([value, label]) => (
                  <option key={value} value={value}>
                    {label}
                  </option>
                ))}
              </select>
            </div>
            <TextField
              label="Who"
              placeholder="email"
              value={draft.actor}
              onChange={(event) => set("actor")(event.target.value)}
            />
            <TextField
              label="Item"
              placeholder="skill, server, tool or email"
              value={draft.item}
              onChange={(event) => set("item")(event.target.value)}
            />
            <TextField
              label="From"
              type="date"
              value={draft.from}
              onChange={(event) => set("from")(event.target.value)}
            />
            <TextField label="To" type="date" value={draft.to} onChange={(event) => set("to")(event.target.value)} />
          </div>
          <div className="form-actions">
            <button type="submit" className="button button-primary">
              Apply filters
            </button>
            <button
              type="button"
              className="button button-ghost"
              onClick={() => {
                setDraft(NO_FILTERS);
                setFilters(NO_FILTERS);
              }}
            >
              Clear
            </button>
          </div>
        </form>
        {error ? (
          <ErrorBanner error={error} />
        ) : events === null ? (
          <Loading label="Loading activity…" />
        ) : events.length === 0 ? (
          <p className="muted">No events match.</p>
        ) : (
          <>
            <EventTable events={events} />
            {cursor && (
              <div className="load-more">
                <button
                  type="button"
                  className="button"
                  disabled={loadingMore}
                  onClick={async () => {
                    setLoadingMore(true);
                    await load(cursor);
                    setLoadingMore(false);
                  }}
                >
                  Load more
                </button>
              </div>
            )}
          </>
        )}
      </section>
    </>
  );
}

import Link from "next/link";
import type { ReactNode } from "react";
import { DataTable } from "@/components/data-table";
import { formatDateTime } from "@/lib/format";
import { historyHref } from "@/lib/skills/links";
import type { ActivityEvent, Outcome } from "@/lib/teams/types";
import { useWorkspace } from "@/lib/workspace";

const OUTCOME_LABELS: Record<Outcome, string> = {
  ok: "ok",
  error: "error",
  tool_error: "tool error",
  not_active: "not active for this session",
  plan_refused: "refused in plan mode",
  withheld: "withheld (pin)",
};

const outcomeClass = (outcome: Outcome) =>
  outcome === "ok"
    ? "outcome-ok"
    : outcome === "error" || outcome === "tool_error"
      ? "outcome-error"
      : "outcome-refused";

/** What changed on one tool of a server (`server.tool_updated` keeps the fields it was given). */
function toolChange(data: Record<string, unknown>): string {
  const parts: string[] = [];
  if (typeof data.enabled === "boolean") parts.push(data.enabled ? "switched on" : "switched off");
  if (Array.isArray(data.planSafeActions))
    parts.push(
      data.planSafeActions.length > 0
        ? `plan-safe: ${data.planSafeActions.map(String).join(", ")}`
        : "no longer plan-safe",
    );
  return parts.join("; ");
}

/**
 * The item's name where the stored item is an id people cannot read: a project's path, the user an
 * account event is about, a console session. Null when the stored item already reads well.
 */
function readableItem(event: ActivityEvent): ReactNode | null {
  const { type, id } = event.target;
  if (type === "project" && typeof event.data.path === "string") return <code>{event.data.path}</code>;
  if (type === "user") return event.actor?.id === id ? event.actor.name || event.actor.email : "a user";
  if (type === "session") return "a console session";
  return null;
}

// A skill or persona change links to the item's history, where that version can be read and restored.
function What({ event }: { event: ActivityEvent }) {
  const ws = useWorkspace();
  if (event.call) {
    return (
      <>
        <code>{event.call.tool}</code>
        {event.item !== event.call.tool && <span className="muted"> {event.item}</span>}
        {event.call.server && <span className="muted"> via server {event.call.server}</span>}
        {event.call.endpoint && <span className="muted"> through endpoint {event.call.endpoint}</span>}
        {event.call.mode !== "agent" && <span className="muted"> ({event.call.mode} mode)</span>}
      </>
    );
  }
  if (event.action === "server.tool_updated" && typeof event.data.tool === "string") {
    const change = toolChange(event.data);
    return (
      <>
        <code>{event.data.tool}</code> <span className="muted">of server {event.item}</span>
        {change && <span> · {change}</span>}
      </>
    );
  }
  const readable = readableItem(event);
  if (readable !== null) return <span>{readable}</span>;
  const versioned =
    (event.target.type === "skill" || event.target.type === "persona") && !event.action.endsWith(".removed");
  const version = typeof event.data.version === "number" ? ` v${event.data.version}` : "";
  return versioned ? (
    <Link href={historyHref(ws, event.item, typeof event.data.version === "number" ? event.data.version : undefined)}>
      {event.item}
      {version}
    </Link>
  ) : (
    <span>{event.item}</span>
  );
}

export function EventTable({ events }: { events: ActivityEvent[] }) {
  return (
    <DataTable
      className="event-table"
      columns={["When", "Who", "What", "Item", "Client", "Outcome", { label: "ms", numeric: true }]}
    >
      {events.map((event) => (
        <tr key={event.id} data-testid="activity-row">
          <td className="nowrap" data-label="When">
            {formatDateTime(event.at)}
          </td>
          <td data-label="Who">
            {event.actor?.email ?? "—"}
            {event.token && <span className="muted"> via {event.token.name}</span>}
          </td>
          <td data-label="What" className="event-what">
            <code>{event.call ? event.call.method : event.action}</code>
          </td>
          <td data-label="Item">
            <What event={event} />
          </td>
          <td data-label="Client">{event.call?.client}</td>
          <td data-label="Outcome">
            {event.call && (
              <span className={outcomeClass(event.call.outcome)}>{OUTCOME_LABELS[event.call.outcome]}</span>
            )}
          </td>
          <td className="numeric" data-label="ms">
            {event.call?.ms.toFixed(1)}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

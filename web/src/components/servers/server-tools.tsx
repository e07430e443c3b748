"use client";

import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { formatDateTime } from "@/lib/format";
import { ApproveAll } from "./approve-all";
import { ToolTable } from "./tool-table";
import type { useTools } from "./use-tools";

/**
 * The Tools card of a server's page: what waits for review (with Approve all), the tools that
 * cannot be offered, and one table of every tool. New and changed tools are withheld from agents
 * until approved here (pinned definitions).
 */
export function ServerTools({ tools }: { tools: ReturnType<typeof useTools> }) {
  const list = tools.load.kind === "ready" ? tools.load.list : null;
  const waiting = list?.tools.filter((tool) => tool.pin !== "approved") ?? [];
  return (
    <section className="card" aria-labelledby="tools-heading" data-testid="server-tools">
      <h2 id="tools-heading" className="card-title">
        Tools
      </h2>
      <ApproveAll waiting={waiting} busy={tools.approving !== null} onApprove={() => void tools.approve(undefined)} />
      <ErrorBanner error={tools.approveError} />
      {list?.refused && list.refused.length > 0 && (
        <div className="banner banner-warning" role="note">
          <p className="banner-message">Some tools cannot be offered:</p>
          <ul className="banner-details">
            {list.refused.map((item) => (
              <li key={item.name}>
                <code>{item.name}</code>: {item.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
      {tools.load.kind === "loading" ? (
        <Loading label="Loading tools…" />
      ) : tools.load.kind === "failed" ? (
        <div className="stack">
          <ErrorBanner error={tools.load.error} />
          <button type="button" className="button" onClick={() => void tools.reload()}>
            Try again
          </button>
        </div>
      ) : tools.load.list.tools.length === 0 ? (
        <p className="muted">
          {tools.load.list.fetchedAt
            ? "The server lists no tools."
            : "No tools listed yet: press Test to connect and list them."}
        </p>
      ) : (
        <>
          <p className="field-hint">
            {tools.load.list.fetchedAt
              ? `Listed ${formatDateTime(tools.load.list.fetchedAt)}.`
              : "Not listed again since the server changed: press Test to refresh."}{" "}
            In plan and goal modes agents see only the tools (and actions) you allow in a tool&apos;s row; the
            server&apos;s read-only hint is a suggestion.
          </p>
          {tools.load.list.truncated && (
            <p className="banner banner-warning" role="note">
              The server offers more tools than Loadout serves from one server; only the first ones are listed.
            </p>
          )}
          <ToolTable
            tools={tools.load.list.tools}
            onEdit={tools.edit}
            approving={tools.approving}
            onApprove={(tool) => void tools.approve([tool.name])}
          />
        </>
      )}
    </section>
  );
}

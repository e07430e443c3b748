"use client";

import { useId, useState } from "react";
import { LineDiffView } from "@/components/skills/line-diff-view";
import { sensitiveTools } from "@/lib/servers/sensitive-tools";
import { descriptionText, schemaText } from "@/lib/servers/tool-diff";
import type { ToolView } from "@/lib/servers/types";

type PinReviewProps = {
  tools: ToolView[];
  busy: string | null;
  onApprove: (tools: string[] | undefined) => void;
};

function DefinitionDiff({
  heading,
  before,
  after,
  label,
}: {
  heading: string;
  before: string;
  after: string;
  label: string;
}) {
  return (
    <>
      <h4 className="diff-heading">{heading}</h4>
      {before === after ? (
        <p className="muted">Unchanged.</p>
      ) : (
        <LineDiffView before={before} after={after} label={label} />
      )}
    </>
  );
}

function ApproveButton({ tool, busy, onApprove }: { tool: ToolView; busy: boolean; onApprove: () => void }) {
  return (
    <button
      type="button"
      className="button button-primary button-small"
      onClick={(event) => {
        // Inside a row's summary, a click would also open or close the row.
        event.preventDefault();
        onApprove();
      }}
      disabled={busy}
      aria-busy={busy}
      aria-label={`Approve ${tool.name}`}
    >
      Approve
    </button>
  );
}

/** A new tool as one line (name, the start of its description, Approve) that opens to the whole definition. */
function NewTool({ tool, busy, onApprove }: { tool: ToolView; busy: boolean; onApprove: () => void }) {
  return (
    <details className="pin-change pin-row" data-testid="pin-change" data-tool={tool.name}>
      <summary className="pin-row-summary">
        <code className="pin-row-name">{tool.name}</code>
        <span className="pin-row-description muted">{tool.title || tool.description || "No description"}</span>
        <ApproveButton tool={tool} busy={busy} onApprove={onApprove} />
      </summary>
      <div className="pin-row-body">
        {tool.title && <p className="tool-title">{tool.title}</p>}
        <p className="pin-description">{tool.description || <span className="muted">No description</span>}</p>
        <h4 className="diff-heading">Input schema</h4>
        <pre className="pin-schema-code">{schemaText(tool)}</pre>
      </div>
    </details>
  );
}

/** A changed tool, open: what its description and input schema were when approved, and are now. */
function ChangedTool({ tool, busy, onApprove }: { tool: ToolView; busy: boolean; onApprove: () => void }) {
  const id = useId();
  return (
    <article className="pin-change" aria-labelledby={id} data-testid="pin-change" data-tool={tool.name}>
      <div className="card-heading">
        <h3 id={id} className="section-title">
          <code>{tool.name}</code> <span className={`chip pin-${tool.pin}`}>changed since you approved it</span>
        </h3>
        <ApproveButton tool={tool} busy={busy} onApprove={onApprove} />
      </div>
      <p className="muted">
        Agents no longer see this tool: its definition changed. Approve the new definition to offer it again.
      </p>
      <DefinitionDiff
        heading="Description"
        before={descriptionText(tool.approved)}
        after={descriptionText(tool)}
        label={`${tool.name}: description, approved and now`}
      />
      <DefinitionDiff
        heading="Input schema"
        before={schemaText(tool.approved)}
        after={schemaText(tool)}
        label={`${tool.name}: input schema, approved and now`}
      />
    </article>
  );
}

function ToolChange({ tool, busy, onApprove }: { tool: ToolView; busy: boolean; onApprove: () => void }) {
  return tool.pin === "new" ? (
    <NewTool tool={tool} busy={busy} onApprove={onApprove} />
  ) : (
    <ChangedTool tool={tool} busy={busy} onApprove={onApprove} />
  );
}

// Pinned definitions: a new or changed tool is withheld from agents until its definition is approved here.
export function PinReview({ tools, busy, onApprove }: PinReviewProps) {
  const [confirming, setConfirming] = useState(false);
  const waiting = tools.filter((tool) => tool.pin !== "approved");
  if (waiting.length === 0) return null;
  const sensitive = sensitiveTools(waiting);
  const headingId = "pin-review-heading";
  return (
    <section className="card pin-review" aria-labelledby={headingId} data-testid="pin-review">
      <div className="card-heading">
        <h2 id={headingId} className="card-title">
          {waiting.length === 1 ? "1 tool waits for your review" : `${waiting.length} tools wait for your review`}
        </h2>
        {waiting.length > 1 && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => setConfirming(true)}
            disabled={busy !== null || confirming}
            aria-busy={busy === "*"}
          >
            Approve all {waiting.length}
          </button>
        )}
      </div>
      {confirming && waiting.length > 1 && (
        <div
          className="banner banner-warning"
          role="alertdialog"
          aria-label="Approve all tools?"
          data-testid="approve-all"
        >
          <p className="banner-message">
            Approve all {waiting.length} tools? Every agent on your MCP URL can then call them.
          </p>
          {sensitive.length > 0 && (
            <>
              <p>These descriptions suggest reading secrets or the environment; read them first:</p>
              <ul className="banner-details" data-testid="sensitive-tools">
                {sensitive.map((tool) => (
                  <li key={tool.name}>
                    <code>{tool.name}</code> <span className="muted">{tool.title || tool.description}</span>
                  </li>
                ))}
              </ul>
            </>
          )}
          <div className="form-actions">
            <button
              type="button"
              className="button button-primary"
              onClick={() => {
                setConfirming(false);
                onApprove(undefined);
              }}
            >
              Yes, approve all {waiting.length}
            </button>
            <button type="button" className="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {waiting.map((tool) => (
        <ToolChange
          key={tool.name}
          tool={tool}
          busy={busy === "*" || busy === tool.name}
          onApprove={() => onApprove([tool.name])}
        />
      ))}
    </section>
  );
}

"use client";

import { useId } from "react";
import { LineDiffView } from "@/components/skills/line-diff-view";
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

function ToolChange({ tool, busy, onApprove }: { tool: ToolView; busy: boolean; onApprove: () => void }) {
  const id = useId();
  const isNew = tool.pin === "new";
  return (
    <article className="pin-change" aria-labelledby={id} data-testid="pin-change" data-tool={tool.name}>
      <div className="card-heading">
        <h3 id={id} className="section-title">
          <code>{tool.name}</code>{" "}
          <span className={`chip pin-${tool.pin}`}>{isNew ? "new tool" : "changed since you approved it"}</span>
        </h3>
        <button
          type="button"
          className="button button-primary button-small"
          onClick={onApprove}
          disabled={busy}
          aria-busy={busy}
          aria-label={`Approve ${tool.name}`}
        >
          Approve
        </button>
      </div>
      <p className="muted">
        {isNew
          ? "Agents do not see this tool until you approve it. Read what it says it does and what it takes."
          : "Agents no longer see this tool: its definition changed. Approve the new definition to offer it again."}
      </p>
      {isNew ? (
        <>
          <h4 className="diff-heading">Description</h4>
          {tool.title && <p className="tool-title">{tool.title}</p>}
          <p className="pin-description">{tool.description || <span className="muted">No description</span>}</p>
          <details className="pin-schema">
            <summary>Input schema</summary>
            <pre className="pin-schema-code">{schemaText(tool)}</pre>
          </details>
        </>
      ) : (
        <>
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
        </>
      )}
    </article>
  );
}

// Pinned definitions: a new or changed tool is withheld from agents until its definition is approved here.
export function PinReview({ tools, busy, onApprove }: PinReviewProps) {
  const waiting = tools.filter((tool) => tool.pin !== "approved");
  if (waiting.length === 0) return null;
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
            onClick={() => onApprove(undefined)}
            disabled={busy !== null}
            aria-busy={busy === "*"}
          >
            Approve all {waiting.length}
          </button>
        )}
      </div>
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

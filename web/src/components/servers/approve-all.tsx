"use client";

import { sensitiveReason } from "@loadout/api/domain/servers/sensitive-tools";
import { useState } from "react";
import type { ToolView } from "@/lib/servers/types";

const REASON = { environment: "reads the environment", secrets: "mentions secrets" } as const;

/**
 * What waits for review, with "Approve all", which asks first and names the tools whose definitions
 * suggest reading secrets or the environment, so a whole server is not waved through unread.
 */
export function ApproveAll({
  waiting,
  busy,
  onApprove,
}: {
  waiting: ToolView[];
  busy: boolean;
  onApprove: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  if (waiting.length === 0) return null;
  const flagged = waiting.flatMap((tool) => {
    const reason = sensitiveReason(tool);
    return reason ? [{ tool, reason }] : [];
  });
  return (
    <div className="banner tool-waiting" data-testid="tools-waiting">
      <div className="tool-waiting-row">
        <p role="status">
          {waiting.length === 1 ? "1 tool waits" : `${waiting.length} tools wait`} for your review: agents do not see a
          new or changed tool until you approve it. Open a row to read its definition.
        </p>
        {waiting.length > 1 && (
          <button
            type="button"
            className="button button-primary"
            onClick={() => setConfirming(true)}
            disabled={busy || confirming}
            aria-busy={busy}
          >
            Approve all {waiting.length}
          </button>
        )}
      </div>
      {confirming && (
        <div
          className="banner banner-warning"
          role="alertdialog"
          aria-label="Approve all tools?"
          data-testid="approve-all"
        >
          <p className="banner-message">
            Approve all {waiting.length} tools? Every agent on your MCP URL can then call them.
          </p>
          {flagged.length > 0 && (
            <>
              <p>These descriptions suggest reading secrets or the environment; open their rows and read them first:</p>
              <ul className="banner-details" data-testid="sensitive-tools">
                {flagged.map(({ tool, reason }) => (
                  <li key={tool.name}>
                    <code>{tool.name}</code> <span className="muted">({REASON[reason]})</span>{" "}
                    {tool.title || tool.description}
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
                onApprove();
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
    </div>
  );
}

"use client";

import { WHOLE_TOOL } from "@loadout/api/domain/servers/tools";
import { useId, useState } from "react";
import { DataTable } from "@/components/data-table";
import { ErrorBanner } from "@/components/error-banner";
import type { ToolEdit, ToolView } from "@/lib/servers/types";
import { ToolDefinition } from "./tool-details";

type ToolTableProps = {
  tools: ToolView[];
  onEdit: (tool: ToolView, edit: ToolEdit) => Promise<unknown>;
  /** The tool being approved, "*" for all of them, or null. */
  approving: string | null;
  onApprove: (tool: ToolView) => void;
};

const PIN_LABEL = { approved: "approved", new: "new", changed: "changed" } as const;

/** Plan mode at a glance, for the closed row: the controls are in the opened one. */
function planSummary(tool: ToolView): string {
  if (tool.planSafeActions.length === 0) return "—";
  if (tool.planSafeActions.includes(WHOLE_TOOL)) return "whole tool";
  return tool.planSafeActions.join(", ");
}

function readOnlyHint(tool: ToolView): boolean | null {
  const value = tool.annotations.readOnlyHint;
  return typeof value === "boolean" ? value : null;
}

function PlanSafe({
  tool,
  disabled,
  onChange,
}: {
  tool: ToolView;
  disabled: boolean;
  onChange: (list: string[]) => void;
}) {
  const id = useId();
  const list = tool.planSafeActions;
  const hint = readOnlyHint(tool);
  const suggestion =
    hint === true ? (
      <p className="field-hint">The server marks it read-only (a suggestion, not a grant).</p>
    ) : hint === false ? (
      <p className="field-hint">The server says it may change things.</p>
    ) : null;
  if (tool.actions === null) {
    return (
      <div className="plan-safe">
        <label className="check-option" htmlFor={`${id}-whole`}>
          <input
            id={`${id}-whole`}
            type="checkbox"
            className="checkbox"
            checked={list.includes(WHOLE_TOOL)}
            disabled={disabled}
            onChange={(event) => onChange(event.target.checked ? [WHOLE_TOOL] : [])}
          />
          Whole tool<span className="visually-hidden"> {tool.name} in plan mode</span>
        </label>
        {suggestion}
      </div>
    );
  }
  const actions = tool.actions;
  return (
    <fieldset className="plan-safe" disabled={disabled}>
      <legend className="visually-hidden">Actions of {tool.name} allowed in plan mode</legend>
      <ul className="plan-actions">
        {actions.map((action) => (
          <li key={action}>
            <label className="check-option">
              <input
                type="checkbox"
                className="checkbox"
                checked={list.includes(action)}
                onChange={(event) =>
                  onChange(
                    event.target.checked
                      ? actions.filter((item) => item === action || list.includes(item))
                      : list.filter((item) => item !== action),
                  )
                }
              />
              <code>{action}</code>
            </label>
          </li>
        ))}
      </ul>
      {suggestion}
    </fieldset>
  );
}

function ToolRow({
  tool: stored,
  onEdit,
  approving,
  onApprove,
}: {
  tool: ToolView;
  onEdit: ToolTableProps["onEdit"];
  approving: boolean;
  onApprove: () => void;
}) {
  const id = useId();
  // A changed tool opens on its diff: it is withheld until someone reads what changed.
  const [open, setOpen] = useState(stored.pin === "changed");
  // ...also when a Test finds it changed while the page is open.
  const [pinSeen, setPinSeen] = useState(stored.pin);
  if (stored.pin !== pinSeen) {
    setPinSeen(stored.pin);
    if (stored.pin === "changed") setOpen(true);
  }
  // The change being saved, shown at once; the row falls back to the stored tool if it is refused.
  const [pending, setPending] = useState<ToolEdit | null>(null);
  const [error, setError] = useState<unknown>(null);
  const tool = pending ? { ...stored, ...pending } : stored;
  const detailsId = `${id}-details`;

  const edit = async (change: ToolEdit) => {
    setPending(change);
    setError(null);
    try {
      await onEdit(stored, change);
    } catch (caught) {
      setError(caught);
      setOpen(true);
    } finally {
      setPending(null);
    }
  };

  return (
    <>
      <tr
        data-testid="tool-row"
        data-tool={tool.name}
        data-pin={tool.pin}
        className={`tool-row${tool.enabled ? "" : " row-inactive"}`}
      >
        <th scope="row" data-label="Tool">
          <button
            type="button"
            className="tool-toggle"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={() => setOpen((current) => !current)}
          >
            <span className="tool-chevron" aria-hidden="true">
              ▸
            </span>
            <code className="tool-name">{tool.name}</code>
            <span className="visually-hidden"> details</span>
          </button>
        </th>
        <td data-label="Description" className="tool-description" title={tool.description}>
          {tool.description || tool.title || <span className="muted">No description</span>}
        </td>
        <td data-label="Review" className="tool-review">
          {tool.pin === "approved" ? (
            <span className="chip pin-approved">approved</span>
          ) : (
            <span className="tool-review-actions">
              <span className={`chip pin-${tool.pin}`}>{PIN_LABEL[tool.pin]}</span>
              <button
                type="button"
                className="button button-primary button-small"
                onClick={onApprove}
                disabled={approving}
                aria-busy={approving}
                aria-label={`Approve ${tool.name}`}
              >
                Approve
              </button>
            </span>
          )}
        </td>
        <td data-label="Enabled">
          <label className="check-option">
            <input
              type="checkbox"
              className="checkbox"
              checked={tool.enabled}
              disabled={pending !== null}
              onChange={(event) => void edit({ enabled: event.target.checked })}
            />
            <span className="visually-hidden">Enable {tool.name}</span>
            <span aria-hidden="true">{tool.enabled ? "On" : "Off"}</span>
          </label>
        </td>
        <td data-label="Plan mode" className="tool-plan" data-testid="plan-summary">
          {planSummary(tool)}
        </td>
      </tr>
      <tr id={detailsId} className="tool-details-row" data-testid="tool-details" data-tool={tool.name} hidden={!open}>
        <td colSpan={5}>
          <div className="tool-details">
            <ToolDefinition tool={tool} />
            <div className="tool-plan-settings">
              <h4 className="diff-heading">In plan and goal modes</h4>
              <PlanSafe
                tool={tool}
                disabled={pending !== null}
                onChange={(list) => void edit({ planSafeActions: list })}
              />
            </div>
            <ErrorBanner error={error} />
          </div>
        </td>
      </tr>
    </>
  );
}

/**
 * A server's tools, one compact row each (name, the start of its description, review, on/off, plan
 * mode at a glance) that opens to the whole definition and the plan-mode settings: fifteen new tools
 * fit on a screen instead of a card each above a table of the same tools.
 */
export function ToolTable({ tools, onEdit, approving, onApprove }: ToolTableProps) {
  return (
    <DataTable className="tool-table" columns={["Tool", "Description", "Review", "Enabled", "Plan mode"]}>
      {tools.map((tool) => (
        <ToolRow
          key={tool.name}
          tool={tool}
          onEdit={onEdit}
          approving={approving === "*" || approving === tool.name}
          onApprove={() => onApprove(tool)}
        />
      ))}
    </DataTable>
  );
}

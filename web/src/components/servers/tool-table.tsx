"use client";

import { WHOLE_TOOL } from "@loadout/api/domain/servers/tools";
import { useId, useState } from "react";
import { DataTable } from "@/components/data-table";
import { ErrorBanner } from "@/components/error-banner";
import type { ToolEdit, ToolView } from "@/lib/servers/types";

type ToolTableProps = {
  tools: ToolView[];
  onEdit: (tool: ToolView, edit: ToolEdit) => Promise<unknown>;
};

const PIN_LABEL = { approved: "approved", new: "new: review", changed: "changed: review" } as const;

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

function ToolRow({ tool: stored, onEdit }: { tool: ToolView; onEdit: ToolTableProps["onEdit"] }) {
  const nameId = useId();
  // The change being saved, shown at once; the row falls back to the stored tool if it is refused.
  const [pending, setPending] = useState<ToolEdit | null>(null);
  const [error, setError] = useState<unknown>(null);
  const tool = pending ? { ...stored, ...pending } : stored;

  const edit = async (change: ToolEdit) => {
    setPending(change);
    setError(null);
    try {
      await onEdit(stored, change);
    } catch (caught) {
      setError(caught);
    } finally {
      setPending(null);
    }
  };

  return (
    <tr data-testid="tool-row" data-tool={tool.name} className={tool.enabled ? undefined : "row-inactive"}>
      <th scope="row" data-label="Tool">
        <code id={nameId} className="tool-name">
          {tool.name}
        </code>
        {tool.title && <div className="tool-title">{tool.title}</div>}
        <div className="muted tool-exposed" title="The name agents see">
          as <code>{tool.exposedName}</code>
        </div>
      </th>
      <td data-label="Description" className="tool-description" title={tool.description}>
        {tool.description || <span className="muted">No description</span>}
      </td>
      <td data-label="Review">
        <span className={`chip pin-${tool.pin}`}>{PIN_LABEL[tool.pin]}</span>
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
      <td data-label="Plan mode">
        <PlanSafe tool={tool} disabled={pending !== null} onChange={(list) => void edit({ planSafeActions: list })} />
        <ErrorBanner error={error} />
      </td>
    </tr>
  );
}

export function ToolTable({ tools, onEdit }: ToolTableProps) {
  return (
    <DataTable className="tool-table" columns={["Tool", "Description", "Review", "Enabled", "Plan mode"]}>
      {tools.map((tool) => (
        <ToolRow key={tool.name} tool={tool} onEdit={onEdit} />
      ))}
    </DataTable>
  );
}

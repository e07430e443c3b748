"use client";

import { formatDateTime } from "@/lib/format";
import type { SkillVersionSummary } from "@/lib/skills/types";
import { DataTable } from "../data-table";

type VersionTableProps = {
  versions: SkillVersionSummary[];
  current: number;
  selected: number | null;
  onSelect: (version: number) => void;
};

export function VersionTable({ versions, current, selected, onSelect }: VersionTableProps) {
  return (
    <DataTable
      className="version-table"
      columns={["Version", "Action", "When", "Who", "Description", { label: "Compare", hidden: true }]}
    >
      {versions.map((version) => (
        <tr
          key={version.version}
          data-testid="version-row"
          className={version.version === selected ? "row-selected" : undefined}
        >
          <th scope="row" className="nowrap">
            v{version.version} {version.version === current && <span className="badge">current</span>}
          </th>
          <td>
            {version.action}
            {version.restoredFrom !== null && ` of v${version.restoredFrom}`}
          </td>
          <td className="nowrap">
            <time dateTime={version.createdAt}>{formatDateTime(version.createdAt)}</time>
          </td>
          <td>{version.actor ? version.actor.email : <span className="muted">—</span>}</td>
          <td className="skill-description" title={version.description}>
            {version.description}
          </td>
          <td className="row-actions">
            {version.version !== current && (
              <button
                type="button"
                className="button button-small"
                aria-pressed={version.version === selected}
                aria-label={`Compare version ${version.version} with the current version`}
                onClick={() => onSelect(version.version)}
              >
                Compare
              </button>
            )}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

"use client";

import { formatDateTime } from "@/lib/format";
import type { SkillVersionSummary } from "@/lib/skills/types";

type VersionTableProps = {
  versions: SkillVersionSummary[];
  current: number;
  selected: number | null;
  onSelect: (version: number) => void;
};

export function VersionTable({ versions, current, selected, onSelect }: VersionTableProps) {
  return (
    <div className="table-wrap">
      <table className="table version-table">
        <thead>
          <tr>
            <th scope="col">Version</th>
            <th scope="col">Action</th>
            <th scope="col">When</th>
            <th scope="col">Who</th>
            <th scope="col">Description</th>
            <th scope="col">
              <span className="visually-hidden">Compare</span>
            </th>
          </tr>
        </thead>
        <tbody>
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
        </tbody>
      </table>
    </div>
  );
}

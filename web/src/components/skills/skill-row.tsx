"use client";

import { formatSize } from "@loadout/api/domain/skills/limits";
import Link from "next/link";
import { useId } from "react";
import { ActivationCell } from "@/components/activation-cell";
import { getSkill, updateSkill } from "@/lib/skills/client";
import { editHref, historyHref } from "@/lib/skills/links";
import type { SkillSummary } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";

type SkillRowProps = {
  item: SkillSummary;
  onChange: (item: SkillSummary) => void;
};

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function SkillRow({ item, onChange }: SkillRowProps) {
  const ws = useWorkspace();
  const nameId = useId();
  return (
    <tr data-testid="skill-row" className={item.state === "off" ? "row-inactive" : undefined}>
      <th scope="row" data-label="Name">
        <Link href={editHref(ws, item.name)} className="skill-name" id={nameId}>
          {item.name}
        </Link>
      </th>
      <td data-label="Description" className="skill-description" title={item.description}>
        {item.description}
      </td>
      <td data-label="Files" className="nowrap muted">
        {plural(item.fileCount, "file", "files")} · {formatSize(item.totalBytes)}
      </td>
      <td data-label="State" className="skill-state">
        <ActivationCell
          name={item.name}
          state={item.state}
          scope={item.scope}
          labelledBy={nameId}
          save={async (change) => onChange(await updateSkill(ws, item.name, { revision: item.revision, ...change }))}
          reload={async () => onChange(await getSkill(ws, item.name))}
        />
      </td>
      <td className="row-actions">
        <Link href={historyHref(ws, item.name)} className="button button-small button-ghost">
          History
        </Link>
      </td>
    </tr>
  );
}

"use client";

import { formatSize } from "@loadout/api/domain/skills/limits";
import Link from "next/link";
import { useId, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { ApiError } from "@/lib/api";
import { getSkill, updateSkill } from "@/lib/skills/client";
import { editHref, historyHref } from "@/lib/skills/links";
import type { SkillScope, SkillState, SkillSummary, UpdateSkillInput } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";
import { ProjectPicker } from "./project-picker";
import { StateControl } from "./state-control";

type SkillRowProps = {
  item: SkillSummary;
  onChange: (item: SkillSummary) => void;
};

// Why the picker is open: to narrow the item to projects, or to edit the list it keeps.
type PickerIntent = "narrow" | "edit";

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

export function SkillRow({ item, onChange }: SkillRowProps) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const nameId = useId();
  const [pending, setPending] = useState<SkillState | null>(null);
  const [picker, setPicker] = useState<PickerIntent | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const write = async (change: Omit<UpdateSkillInput, "revision">, next: SkillState) => {
    setPending(next);
    setNotice(null);
    setError(null);
    try {
      onChange(await updateSkill(ws, item.name, { revision: item.revision, ...change }));
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) {
        try {
          onChange(await getSkill(ws, item.name));
          setNotice(`“${item.name}” was changed elsewhere. This row now shows its latest state; choose again.`);
        } catch (reloadError) {
          if (!handleAuthError(reloadError)) setError(reloadError);
        }
      } else {
        setError(caught);
      }
    } finally {
      setPending(null);
    }
  };

  const choose = (next: SkillState) => {
    const projects = item.scope.projects;
    // Narrowing to projects needs some; off and global keep the list for later.
    if (next === "projects" && projects.length === 0) {
      setPicker("narrow");
      return;
    }
    const change: Omit<UpdateSkillInput, "revision"> =
      next === "off" ? { enabled: false } : { enabled: true, scope: { mode: next, projects } };
    void write(change, next);
  };

  const pick = (projects: string[]) => {
    const intent = picker;
    setPicker(null);
    if (intent === "narrow") {
      void write({ enabled: true, scope: { mode: "projects", projects } }, "projects");
    } else {
      const scope: SkillScope = { mode: item.scope.mode, projects };
      void write({ scope }, item.state);
    }
  };

  const projectCount = item.scope.projects.length;

  return (
    <tr data-testid="skill-row" className={item.state === "off" ? "row-inactive" : undefined}>
      <th scope="row" data-label="Name">
        <Link href={editHref(item.name)} className="skill-name" id={nameId}>
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
        <div className="state-cell">
          <StateControl
            labelledBy={nameId}
            value={pending ?? (picker === "narrow" ? "projects" : item.state)}
            disabled={pending !== null}
            onChange={choose}
          />
          {(projectCount > 0 || item.state === "projects") && (
            <button
              type="button"
              className="button button-small button-ghost project-count"
              aria-label={`Projects of ${item.name}`}
              title={item.scope.projects.join("\n")}
              onClick={() => setPicker("edit")}
            >
              {plural(projectCount, "project", "projects")}
              {item.state !== "projects" && projectCount > 0 && " kept"}
            </button>
          )}
        </div>
        {notice && (
          <p className="row-notice" role="alert">
            {notice}
          </p>
        )}
        <ErrorBanner error={error} />
        {picker && (
          <ProjectPicker
            itemName={item.name}
            initial={item.scope.projects}
            requireOne={picker === "narrow" || item.state === "projects"}
            onDone={pick}
            onCancel={() => setPicker(null)}
          />
        )}
      </td>
      <td className="row-actions">
        <Link href={historyHref(item.name)} className="button button-small button-ghost">
          History
        </Link>
      </td>
    </tr>
  );
}

"use client";

import { useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { ProjectPicker } from "@/components/skills/project-picker";
import { StateControl } from "@/components/skills/state-control";
import { ApiError } from "@/lib/api";
import type { SkillScope, SkillState } from "@/lib/skills/types";

export type ActivationChange = { enabled?: boolean; scope?: SkillScope };

type ActivationCellProps = {
  // The item's name as people read it, for labels and notices.
  name: string;
  state: SkillState;
  scope: SkillScope;
  // The radio group is named by this element (the item's name in its row, or the page's heading).
  labelledBy: string;
  // Saves a change (with the revision the caller holds); throws the API's error.
  save: (change: ActivationChange) => Promise<void>;
  // Loads the item again after a conflict.
  reload: () => Promise<void>;
};

// Why the picker is open: to narrow the item to projects, or to edit the list it keeps.
type PickerIntent = "narrow" | "edit";

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

// Off / projects / global for a skill, persona or server: one control over the item's `enabled`
// and `scope`, so narrowing to projects, switching off and back on keeps the projects chosen.
export function ActivationCell({ name, state, scope, labelledBy, save, reload }: ActivationCellProps) {
  const { handleAuthError } = useSession();
  const [pending, setPending] = useState<SkillState | null>(null);
  const [picker, setPicker] = useState<PickerIntent | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const write = async (change: ActivationChange, next: SkillState) => {
    setPending(next);
    setNotice(null);
    setError(null);
    try {
      await save(change);
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) {
        try {
          await reload();
          setNotice(`“${name}” was changed elsewhere. This now shows its latest state; choose again.`);
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
    // Narrowing to projects needs some; off and global keep the list for later.
    if (next === "projects" && scope.projects.length === 0) {
      setPicker("narrow");
      return;
    }
    void write(
      next === "off" ? { enabled: false } : { enabled: true, scope: { mode: next, projects: scope.projects } },
      next,
    );
  };

  const pick = (projects: string[]) => {
    const intent = picker;
    setPicker(null);
    if (intent === "narrow") void write({ enabled: true, scope: { mode: "projects", projects } }, "projects");
    else void write({ scope: { mode: scope.mode, projects } }, state);
  };

  const projectCount = scope.projects.length;
  return (
    <>
      <div className="state-cell">
        <StateControl
          labelledBy={labelledBy}
          value={pending ?? (picker === "narrow" ? "projects" : state)}
          disabled={pending !== null}
          onChange={choose}
        />
        {(projectCount > 0 || state === "projects") && (
          <button
            type="button"
            className="button button-small button-ghost project-count"
            aria-label={`Projects of ${name}`}
            title={scope.projects.join("\n")}
            onClick={() => setPicker("edit")}
          >
            {plural(projectCount, "project", "projects")}
            {state !== "projects" && projectCount > 0 && " kept"}
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
          itemName={name}
          initial={scope.projects}
          requireOne={picker === "narrow" || state === "projects"}
          onDone={pick}
          onCancel={() => setPicker(null)}
        />
      )}
    </>
  );
}

"use client";

import { useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { ProjectPicker } from "@/components/skills/project-picker";
import { StateControl } from "@/components/skills/state-control";
import { ApiError } from "@/lib/api";
import { getServer, updateServer } from "@/lib/servers/client";
import type { Server, ServerEdit } from "@/lib/servers/types";
import type { SkillState } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";

type ServerStateProps = {
  server: Server;
  // The radio group is named by this element (the server's label in its row, or the page's heading).
  labelledBy: string;
  onChange: (server: Server) => void;
};

type PickerIntent = "narrow" | "edit";

function plural(count: number, one: string, many: string): string {
  return `${count} ${count === 1 ? one : many}`;
}

// Off / projects / global for a server: the same control as for skills, over the server's `enabled` and `scope`.
export function ServerState({ server, labelledBy, onChange }: ServerStateProps) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [pending, setPending] = useState<SkillState | null>(null);
  const [picker, setPicker] = useState<PickerIntent | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);

  const write = async (change: Omit<ServerEdit, "revision">, next: SkillState) => {
    setPending(next);
    setNotice(null);
    setError(null);
    try {
      onChange(await updateServer(ws, server.slug, { revision: server.revision, ...change }));
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) {
        try {
          onChange(await getServer(ws, server.slug));
          setNotice(`“${server.label}” was changed elsewhere. This now shows its latest state; choose again.`);
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
    const projects = server.scope.projects;
    if (next === "projects" && projects.length === 0) {
      setPicker("narrow");
      return;
    }
    void write(next === "off" ? { enabled: false } : { enabled: true, scope: { mode: next, projects } }, next);
  };

  const pick = (projects: string[]) => {
    const intent = picker;
    setPicker(null);
    if (intent === "narrow") void write({ enabled: true, scope: { mode: "projects", projects } }, "projects");
    else void write({ scope: { mode: server.scope.mode, projects } }, server.state);
  };

  const projectCount = server.scope.projects.length;
  return (
    <>
      <div className="state-cell">
        <StateControl
          labelledBy={labelledBy}
          value={pending ?? (picker === "narrow" ? "projects" : server.state)}
          disabled={pending !== null}
          onChange={choose}
        />
        {(projectCount > 0 || server.state === "projects") && (
          <button
            type="button"
            className="button button-small button-ghost project-count"
            aria-label={`Projects of ${server.label}`}
            title={server.scope.projects.join("\n")}
            onClick={() => setPicker("edit")}
          >
            {plural(projectCount, "project", "projects")}
            {server.state !== "projects" && projectCount > 0 && " kept"}
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
          itemName={server.label}
          initial={server.scope.projects}
          requireOne={picker === "narrow" || server.state === "projects"}
          onDone={pick}
          onCancel={() => setPicker(null)}
        />
      )}
    </>
  );
}

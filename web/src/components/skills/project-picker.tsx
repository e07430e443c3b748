"use client";

import { normalizeProjectPath } from "@loadout/api/domain/activation";
import { type FormEvent, useCallback, useEffect, useId, useRef, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { TextField } from "@/components/text-field";
import { splitErrorDetails } from "@/lib/form-errors";
import { addProject, listProjects, removeProject } from "@/lib/skills/client";
import type { Project } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";

type ProjectPickerProps = {
  itemName: string;
  initial: string[];
  // Narrowing to projects needs at least one; editing the kept list of an off or global item does not.
  requireOne: boolean;
  onDone: (projects: string[]) => void;
  onCancel: () => void;
};

// The API stores paths normalised; the same rule decides whether a scoped path is one of the listed ones.
function samePath(a: string, b: string): boolean {
  return normalizeProjectPath(a) === normalizeProjectPath(b);
}

export function ProjectPicker({ itemName, initial, requireOne, onDone, onCancel }: ProjectPickerProps) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const headingId = useId();
  const dialogRef = useRef<HTMLDialogElement>(null);
  const [projects, setProjects] = useState<Project[] | null>(null);
  const [selected, setSelected] = useState<string[]>(initial);
  // Scoped paths that are not known projects; they stay listed when unticked, so they can be ticked again.
  const [unlisted, setUnlisted] = useState<string[]>(initial);
  const [newPath, setNewPath] = useState("");
  const [adding, setAdding] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [addError, setAddError] = useState<unknown>(null);

  useEffect(() => {
    const dialog = dialogRef.current;
    if (dialog && !dialog.open) dialog.showModal();
  }, []);

  const load = useCallback(async () => {
    try {
      const list = await listProjects(ws);
      setProjects(list.projects);
      setError(null);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
  }, [ws, handleAuthError]);

  useEffect(() => {
    void load();
  }, [load]);

  const isSelected = (path: string) => selected.some((item) => samePath(item, path));
  const toggle = (path: string, checked: boolean) => {
    setSelected((current) =>
      checked
        ? [...current.filter((item) => !samePath(item, path)), path]
        : current.filter((item) => !samePath(item, path)),
    );
  };

  const add = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const path = newPath.trim();
    if (!path) return;
    setAdding(true);
    setAddError(null);
    try {
      const project = await addProject(ws, path);
      setProjects((current) => [...(current ?? []).filter((item) => item.id !== project.id), project]);
      toggle(project.path, true);
      // Typed-on text (a next path) is kept; only the added one is cleared.
      setNewPath((current) => (current.trim() === path ? "" : current));
    } catch (caught) {
      if (!handleAuthError(caught)) setAddError(caught);
    } finally {
      setAdding(false);
    }
  };

  const forget = async (project: Project) => {
    setError(null);
    try {
      await removeProject(ws, project.id);
      setProjects((current) => (current ?? []).filter((item) => item.id !== project.id));
      // Forgetting a project leaves scopes that name it alone: a ticked path stays, listed on its own.
      if (isSelected(project.path)) setUnlisted((current) => [...current, project.path]);
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    }
  };

  const known = projects ?? [];
  const extra = unlisted.filter(
    (path, index) =>
      !known.some((project) => samePath(project.path, path)) &&
      unlisted.findIndex((other) => samePath(other, path)) === index,
  );
  const rows = [
    ...known.map((project) => ({ path: project.path, project })),
    ...extra.map((path) => ({ path, project: null })),
  ];
  const { fields, others } = splitErrorDetails(addError, ["path"] as const);
  const blocked = requireOne && selected.length === 0;
  const finalSelection = rows.map((row) => row.path).filter((path) => isSelected(path));

  return (
    <dialog
      ref={dialogRef}
      className="dialog project-picker"
      aria-labelledby={headingId}
      data-testid="project-picker"
      onCancel={(event) => {
        event.preventDefault();
        onCancel();
      }}
    >
      <div className="dialog-body">
        <h2 id={headingId} className="card-title">
          Projects for {itemName}
        </h2>
        <p className="field-hint">
          A path also covers its subfolders. An item scoped to projects is not active in sessions without a project.
        </p>
        <ErrorBanner error={error} />
        {projects === null && !error ? (
          <p className="muted">Loading projects…</p>
        ) : rows.length === 0 ? (
          <p className="muted">No projects yet. Add the path of a project folder below.</p>
        ) : (
          <ul className="project-list">
            {rows.map(({ path, project }) => {
              const inputId = `${headingId}-${path}`;
              return (
                <li key={path} className="project-option">
                  <input
                    id={inputId}
                    type="checkbox"
                    className="checkbox"
                    checked={isSelected(path)}
                    onChange={(event) => toggle(path, event.target.checked)}
                  />
                  <label htmlFor={inputId} className="project-path">
                    {path}
                  </label>
                  {project?.source === "session" && <span className="chip">seen in a session</span>}
                  {project && (
                    <button
                      type="button"
                      className="button button-small button-ghost"
                      aria-label={`Remove ${path}`}
                      title="Remove from the workspace's projects"
                      onClick={() => void forget(project)}
                    >
                      Remove
                    </button>
                  )}
                </li>
              );
            })}
          </ul>
        )}
        <form className="project-add" onSubmit={add} noValidate>
          <TextField
            label="Project path"
            name="path"
            autoComplete="off"
            spellCheck={false}
            placeholder="e.g. /home/ada/code/shop"
            value={newPath}
            onChange={(event) => setNewPath(event.target.value)}
            error={fields.path}
          />
          <button type="submit" className="button" disabled={adding || !newPath.trim()} aria-busy={adding}>
            Add project
          </button>
        </form>
        <ErrorBanner error={addError} details={others} />
      </div>
      <div className="dialog-actions">
        {blocked && <p className="field-hint">Tick at least one project.</p>}
        <button type="button" className="button button-ghost" onClick={onCancel}>
          Cancel
        </button>
        <button
          type="button"
          className="button button-primary"
          disabled={blocked}
          onClick={() => onDone(finalSelection)}
        >
          Done
        </button>
      </div>
    </dialog>
  );
}

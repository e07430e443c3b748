"use client";

import { useId, useState } from "react";
import { api } from "@/lib/api";
import type { Workspace } from "@/lib/types";

// Deleting a team takes its skills, history, servers and log with it: the owner types its slug first.
export function DeleteTeam({
  team,
  onDeleted,
  onError,
}: {
  team: Workspace;
  onDeleted: () => Promise<void>;
  onError: (error: unknown) => void;
}) {
  const id = useId();
  const [asking, setAsking] = useState(false);
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);

  if (!asking)
    return (
      <button type="button" className="button button-danger-outline" onClick={() => setAsking(true)}>
        Delete team
      </button>
    );

  const remove = async () => {
    setBusy(true);
    try {
      await api.delete(`/v1/workspaces/${encodeURIComponent(team.slug)}`);
      await onDeleted();
    } catch (error) {
      onError(error);
      setBusy(false);
    }
  };

  return (
    <fieldset className="confirm" disabled={busy}>
      <legend className="confirm-question">
        Delete {team.name} with all its skills, personas, servers, history and activity? This cannot be undone.
      </legend>
      <div className="field">
        <label htmlFor={`${id}-slug`} className="field-label">
          Type {team.slug} to confirm
        </label>
        <input
          id={`${id}-slug`}
          className="input"
          autoComplete="off"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
        />
      </div>
      <div className="confirm-buttons">
        <button
          type="button"
          className="button button-danger"
          disabled={typed !== team.slug}
          onClick={() => void remove()}
          aria-busy={busy}
        >
          Delete {team.slug}
        </button>
        <button type="button" className="button button-ghost" onClick={() => setAsking(false)}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}

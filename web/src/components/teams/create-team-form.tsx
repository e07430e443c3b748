"use client";

import { type FormEvent, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { TextField } from "@/components/text-field";
import { api } from "@/lib/api";
import { splitErrorDetails } from "@/lib/form-errors";
import type { Workspace } from "@/lib/types";

const FIELDS = ["slug", "name"] as const;

// A team's slug addresses its items (`acme/code-review`) and prefixes its tools: proposed from the name.
function slugFrom(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 39)
    .replace(/-+$/, "");
}

export function CreateTeamForm({
  onCreated,
  onError,
}: {
  onCreated: (team: Workspace) => void;
  onError: (error: unknown) => boolean;
}) {
  const [name, setName] = useState("");
  const [slug, setSlug] = useState("");
  const [slugEdited, setSlugEdited] = useState(false);
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setPending(true);
    setError(null);
    try {
      const team = await api.post<Workspace>("/v1/workspaces", { name: name.trim(), slug });
      setName("");
      setSlug("");
      setSlugEdited(false);
      onCreated(team);
    } catch (caught) {
      if (!onError(caught)) setError(caught);
    } finally {
      setPending(false);
    }
  };

  const { fields, others } = splitErrorDetails(error, FIELDS);
  return (
    <form className="form" onSubmit={submit} noValidate>
      <ErrorBanner error={error} details={others} />
      <div className="form-row">
        <TextField
          label="Team name"
          name="name"
          required
          autoComplete="off"
          placeholder="e.g. Acme Platform"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            if (!slugEdited) setSlug(slugFrom(event.target.value));
          }}
          error={fields.name}
        />
        <TextField
          label="Team slug"
          name="slug"
          required
          autoComplete="off"
          placeholder="acme"
          value={slug}
          onChange={(event) => {
            setSlug(event.target.value);
            setSlugEdited(true);
          }}
          hint="Members address the team's items as slug/name, and its tools start with slug_."
          error={fields.slug}
        />
      </div>
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
          Create team
        </button>
      </div>
    </form>
  );
}

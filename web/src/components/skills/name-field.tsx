"use client";

import { NAME_MAX_CHARS } from "@loadout/api/domain/skills/names";
import { useId } from "react";
import { FieldErrors } from "./field-errors";

type NameFieldProps = {
  value: string;
  errors: string[] | undefined;
  onChange: (value: string) => void;
};

export function NameField({ value, errors, onChange }: NameFieldProps) {
  const id = useId();
  return (
    <div className="field field-narrow">
      <label htmlFor={id} className="field-label">
        Name
      </label>
      <input
        id={id}
        className="input input-mono"
        required
        autoComplete="off"
        spellCheck={false}
        maxLength={NAME_MAX_CHARS * 2}
        placeholder="e.g. code-review"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={errors?.length ? true : undefined}
        aria-describedby={`${id}-hint${errors?.length ? ` ${id}-error` : ""}`}
      />
      <p id={`${id}-hint`} className="field-hint">
        Lowercase letters, digits and hyphens, at most {NAME_MAX_CHARS} characters. Agents and the MCP URL use it; it
        cannot be changed later.
      </p>
      <FieldErrors id={`${id}-error`} messages={errors} />
    </div>
  );
}

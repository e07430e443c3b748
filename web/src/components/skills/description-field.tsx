"use client";

import { DESCRIPTION_MAX_CHARS } from "@loadout/api/domain/skills/limits";
import { useId } from "react";
import { characterCount } from "@/lib/skills/document";
import { FieldErrors } from "./field-errors";

type DescriptionFieldProps = {
  value: string;
  errors: string[] | undefined;
  onChange: (value: string) => void;
};

export function DescriptionField({ value, errors, onChange }: DescriptionFieldProps) {
  const id = useId();
  const count = characterCount(value);
  const over = count > DESCRIPTION_MAX_CHARS;
  return (
    <div className="field">
      <label htmlFor={id} className="field-label">
        Description
      </label>
      <p id={`${id}-hint`} className="field-hint">
        Every session where this is active reads the description, and agents decide from it when to fetch the
        instructions: say what it does and when to use it.
      </p>
      <textarea
        id={id}
        className="input textarea"
        rows={3}
        required
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={errors?.length || over ? true : undefined}
        aria-describedby={`${id}-hint ${id}-count${errors?.length ? ` ${id}-error` : ""}`}
      />
      <p id={`${id}-count`} className={over ? "counter counter-over" : "counter"}>
        {count.toLocaleString()} / {DESCRIPTION_MAX_CHARS.toLocaleString()} characters
      </p>
      <FieldErrors id={`${id}-error`} messages={errors} />
    </div>
  );
}

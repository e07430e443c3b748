"use client";

import { formatSize, SKILL_DOC_MAX_BYTES } from "@loadout/api/domain/skills/limits";
import { useId, useMemo, useState } from "react";
import { renderMarkdown } from "@/lib/skills/markdown";
import { FieldErrors } from "./field-errors";

type InstructionsFieldProps = {
  value: string;
  documentName: string;
  documentBytes: number;
  errors: string[] | undefined;
  onChange: (value: string) => void;
};

export function InstructionsField({ value, documentName, documentBytes, errors, onChange }: InstructionsFieldProps) {
  const id = useId();
  const [preview, setPreview] = useState(false);
  // Rendered only on demand, in the browser, and always through DOMPurify (see renderMarkdown).
  const html = useMemo(() => (preview ? renderMarkdown(value) : ""), [preview, value]);
  const over = documentBytes > SKILL_DOC_MAX_BYTES;

  return (
    <div className="field">
      <div className="field-heading">
        <label htmlFor={id} className="field-label">
          Instructions
        </label>
        <button
          type="button"
          className="button button-small"
          aria-pressed={preview}
          aria-controls={`${id}-preview`}
          onClick={() => setPreview((current) => !current)}
        >
          Preview
        </button>
      </div>
      <p id={`${id}-hint`} className="field-hint">
        Markdown that agents read when they use it. Only fetched on demand, so it can be detailed.
      </p>
      <textarea
        id={id}
        className="input textarea textarea-code"
        rows={18}
        hidden={preview}
        spellCheck={false}
        value={value}
        onChange={(event) => onChange(event.target.value)}
        aria-invalid={errors?.length || over ? true : undefined}
        aria-describedby={`${id}-hint ${id}-bytes${errors?.length ? ` ${id}-error` : ""}`}
      />
      {preview && (
        // biome-ignore lint/security/noDangerouslySetInnerHtml: the HTML is sanitised by DOMPurify in renderMarkdown.
        <div id={`${id}-preview`} className="markdown-preview" dangerouslySetInnerHTML={{ __html: html }} />
      )}
      <p id={`${id}-bytes`} className={over ? "counter counter-over" : "counter"} data-testid="byte-counter">
        {documentName}: {formatSize(documentBytes)} of {formatSize(SKILL_DOC_MAX_BYTES)}
        {over && ` — over the limit by ${formatSize(documentBytes - SKILL_DOC_MAX_BYTES)}; move long parts into files`}
      </p>
      <FieldErrors id={`${id}-error`} messages={errors} />
    </div>
  );
}

"use client";

import { formatSize, SKILL_MAX_BYTES } from "@loadout/api/domain/skills/limits";
import { useRouter } from "next/navigation";
import { type FormEvent, useId, useState } from "react";
import { DropZone } from "@/components/drop-zone";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { importSkillArchive, importSkillText } from "@/lib/skills/client";
import { documentFileName } from "@/lib/skills/document";
import { editHref } from "@/lib/skills/links";
import type { SkillDetail, SkillKind } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";
import { FieldErrors } from "./field-errors";

type ImportFormProps = { kind: SkillKind };

function useImport() {
  const router = useRouter();
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const run = async (send: () => Promise<SkillDetail>) => {
    setPending(true);
    setError(null);
    try {
      const imported = await send();
      router.push(editHref(ws, imported.name));
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
      setPending(false);
    }
  };
  return { pending, error, run };
}

export function PasteImportForm({ kind }: ImportFormProps) {
  const ws = useWorkspace();
  const id = useId();
  const [text, setText] = useState("");
  const [attempted, setAttempted] = useState(false);
  const { pending, error, run } = useImport();
  const fileName = documentFileName(kind);

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAttempted(true);
    if (!text.trim()) return;
    void run(() => importSkillText(ws, kind, text));
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={id} className="field-label">
          {fileName} text
        </label>
        <textarea
          id={id}
          className="input textarea textarea-code"
          rows={14}
          spellCheck={false}
          placeholder={`---\nname: code-review\ndescription: Review a change for bugs and style. Use when asked to review code.\n---\n\n# Instructions…`}
          value={text}
          onChange={(event) => setText(event.target.value)}
          aria-invalid={attempted && !text.trim() ? true : undefined}
        />
        <p className="field-hint">
          The whole file: YAML frontmatter with <code>name</code> and <code>description</code>, then the instructions.
        </p>
        <FieldErrors id={`${id}-error`} messages={attempted && !text.trim() ? [`Paste a ${fileName}.`] : undefined} />
      </div>
      <ErrorBanner error={error} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
          Import
        </button>
      </div>
    </form>
  );
}

export function ArchiveImportForm({ kind }: ImportFormProps) {
  const ws = useWorkspace();
  const id = useId();
  const [archive, setArchive] = useState<File | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const { pending, error, run } = useImport();

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const tooBig = `The archive is larger than a ${kind} may be (${formatSize(SKILL_MAX_BYTES)}).`;
    const found = archive ? (archive.size > SKILL_MAX_BYTES ? tooBig : null) : "Choose a .zip or .skill file.";
    setProblem(found);
    if (found || !archive) return;
    void run(() => importSkillArchive(ws, kind, archive));
  };

  return (
    <form className="form" onSubmit={submit} noValidate>
      <div className="field">
        <label htmlFor={id} className="field-label">
          Archive (.zip or .skill)
        </label>
        <DropZone
          onFiles={(files) => {
            setArchive(files[0] ?? null);
            setProblem(null);
          }}
          label={archive ? `Chosen: ${archive.name}` : "or drop the archive here"}
          testId="drop-archive"
        >
          <input
            id={id}
            type="file"
            accept=".zip,.skill,application/zip"
            className="file-input"
            onChange={(event) => {
              setArchive(event.target.files?.[0] ?? null);
              setProblem(null);
            }}
          />
        </DropZone>
        <p className="field-hint">
          A zip of the {kind}&apos;s folder, with its <code>{documentFileName(kind)}</code> at the top or in one folder.
        </p>
        <FieldErrors id={`${id}-error`} messages={problem ? [problem] : undefined} />
      </div>
      <ErrorBanner error={error} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={pending} aria-busy={pending}>
          Import archive
        </button>
      </div>
    </form>
  );
}

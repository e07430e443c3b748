"use client";

import { DESCRIPTION_MAX_CHARS, SKILL_DOC_MAX_BYTES, SKILL_MAX_FILES } from "@loadout/api/domain/skills/limits";
import { skillNameProblem } from "@loadout/api/domain/skills/names";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { type FormEvent, useMemo, useRef, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { useSession } from "@/components/session-provider";
import { StaleNotice } from "@/components/stale-notice";
import { ApiError } from "@/lib/api";
import { formatDateTime } from "@/lib/format";
import { createSkill, getSkill, removeSkill, skillFileUrl, updateSkill } from "@/lib/skills/client";
import { characterCount, documentFileName, documentBytes as measureDocument } from "@/lib/skills/document";
import { type EditorErrors, NO_EDITOR_ERRORS, placeErrors } from "@/lib/skills/editor-errors";
import { editHref, historyHref, listHref } from "@/lib/skills/links";
import type { FileInput, SkillDetail, SkillKind } from "@/lib/skills/types";
import { readUpload } from "@/lib/skills/uploads";
import { useUnsavedWarning } from "@/lib/unsaved";
import { useWorkspace } from "@/lib/workspace";
import { DescriptionField } from "./description-field";
import { FileList, type Upload } from "./file-list";
import { InlineConfirm } from "./inline-confirm";
import { InstructionsField } from "./instructions-field";
import { NameField } from "./name-field";
import { uploadProblems } from "./upload-problems";

type SkillEditorProps = {
  kind: SkillKind;
  // null for a new item.
  initial: SkillDetail | null;
};

export function SkillEditor({ kind, initial }: SkillEditorProps) {
  const ws = useWorkspace();
  const router = useRouter();
  const { handleAuthError } = useSession();
  // Keys for pending uploads (crypto.randomUUID is missing on plain-http hosts other than localhost).
  const uploadCount = useRef(0);
  const [detail, setDetail] = useState(initial);
  const [name, setName] = useState(initial?.name ?? "");
  const [description, setDescription] = useState(initial?.description ?? "");
  const [body, setBody] = useState(initial?.body ?? "");
  const [uploads, setUploads] = useState<Upload[]>([]);
  const [removed, setRemoved] = useState<ReadonlySet<string>>(new Set());
  const [attempted, setAttempted] = useState(false);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>(null);
  // The name a create was refused for because an item has it: linked, so the user can open that one.
  const [taken, setTaken] = useState<string | null>(null);
  const [placed, setPlaced] = useState<EditorErrors>(NO_EDITOR_ERRORS);
  const [stale, setStale] = useState(false);
  const [status, setStatus] = useState<string | null>(null);

  const isNew = detail === null;
  const documentName = documentFileName(detail?.kind ?? kind);
  const noun = (detail?.kind ?? kind) === "persona" ? "persona" : "skill";
  const stored = useMemo(
    () => (detail ? { document: detail.document, description: detail.description, body: detail.body } : null),
    [detail],
  );
  const documentBytes = useMemo(
    () => measureDocument({ name, description, body, stored }),
    [name, description, body, stored],
  );
  const storedPaths = useMemo(() => detail?.files.map((file) => file.path) ?? [], [detail]);
  const kept = storedPaths.filter((path) => path !== documentName && !removed.has(path));
  const problems = uploadProblems(uploads, kept, documentName);
  const fileCount = storedPaths.length - removed.size + uploads.filter((u) => !storedPaths.includes(u.path)).length;

  useUnsavedWarning(
    !saving &&
      (description !== (detail?.description ?? "") ||
        body !== (detail?.body ?? "") ||
        (isNew && name !== "") ||
        uploads.length > 0 ||
        removed.size > 0),
  );

  // The console's own checks, shown once the user has tried to save; the API checks everything again.
  const local = {
    description: description.trim()
      ? characterCount(description) > DESCRIPTION_MAX_CHARS
        ? `Shorten the description to ${DESCRIPTION_MAX_CHARS} characters.`
        : null
      : "Enter a description: it is how agents know when to use this.",
    name: isNew ? sentence(skillNameProblem(name)) : null,
  };
  const blocked =
    documentBytes > SKILL_DOC_MAX_BYTES ||
    fileCount > SKILL_MAX_FILES ||
    Object.keys(problems).length > 0 ||
    local.description !== null ||
    local.name !== null;

  // `own` is the console's check: shown after a first save attempt, or at once when `live`.
  const fieldErrors = (field: "description" | "name" | "instructions", own: string | null, live = false) => {
    const list = [...((attempted || live) && own ? [own] : []), ...(placed.fields[field] ?? [])];
    return list.length > 0 ? list : undefined;
  };

  const edited = (change: () => void) => {
    change();
    setStatus(null);
  };

  const addUploads = (files: File[]) =>
    edited(() =>
      setUploads((current) => [
        ...current,
        ...files.map((file) => ({ key: `upload-${++uploadCount.current}`, file, path: file.name })),
      ]),
    );

  const reset = (next: SkillDetail) => {
    setDetail(next);
    setDescription(next.description);
    setBody(next.body);
    setUploads([]);
    setRemoved(new Set());
    setAttempted(false);
    setPlaced(NO_EDITOR_ERRORS);
    setError(null);
    setStale(false);
  };

  const readFiles = () =>
    Promise.all(uploads.map(async (upload) => ({ path: upload.path, input: await readUpload(upload.file) })));

  const save = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setAttempted(true);
    setStatus(null);
    if (blocked) return;
    setSaving(true);
    setError(null);
    setPlaced(NO_EDITOR_ERRORS);
    try {
      const files = await readFiles();
      if (detail === null) {
        const created = await createSkill(ws, {
          kind,
          name,
          description,
          instructions: body,
          files: files.map((file) => ({ path: file.path, ...file.input })),
        });
        router.replace(editHref(ws, created.name));
        return;
      }
      const fileChanges: Record<string, FileInput | null> = {};
      for (const path of removed) fileChanges[path] = null;
      for (const file of files) fileChanges[file.path] = file.input;
      const filesChanged = Object.keys(fileChanges).length > 0;
      const changes = {
        ...(description !== detail.description ? { description } : {}),
        ...(body !== detail.body ? { instructions: body } : {}),
      };
      if (Object.keys(changes).length === 0 && !filesChanged) {
        setStatus("Nothing has changed since the last save.");
        return;
      }
      const saved = await updateSkill(ws, detail.name, {
        revision: detail.revision,
        ...changes,
        ...(filesChanged ? { files: fileChanges } : {}),
      });
      reset(saved);
      setStatus(
        saved.version === detail.version
          ? `No content changed; still version ${saved.version}.`
          : `Saved as version ${saved.version}.`,
      );
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409 && !isNew) {
        setStale(true);
        return;
      }
      const where = placeErrors(caught, {
        documentName,
        filePaths: [...storedPaths, ...uploads.map((upload) => upload.path)],
        uploads: uploads.map((upload) => upload.path),
        isNew,
      });
      if (caught instanceof ApiError && caught.status === 409 && isNew && !where.fields.name) {
        where.fields.name = [caught.message];
      }
      setTaken(caught instanceof ApiError && caught.status === 409 && isNew ? name : null);
      setPlaced(where);
      setError(caught);
    } finally {
      setSaving(false);
    }
  };

  const remove = async () => {
    if (!detail) return;
    setError(null);
    try {
      await removeSkill(ws, detail.name, detail.revision);
      router.push(listHref(detail.kind));
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) setStale(true);
      else setError(caught);
    }
  };

  return (
    <>
      <header className="page-header page-header-row">
        <div className="page-header">
          <p className="breadcrumb">
            <Link href={listHref(detail?.kind ?? kind)}>{noun === "persona" ? "Personas" : "Skills"}</Link>
          </p>
          <h1 className="page-title">{detail ? detail.name : `New ${noun}`}</h1>
          {detail && (
            <p className="page-lead">
              Version {detail.version} · saved {formatDateTime(detail.updatedAt)} · {detail.state}
            </p>
          )}
        </div>
        {detail && (
          <div className="header-actions">
            <Link href={historyHref(ws, detail.name)} className="button">
              History
            </Link>
          </div>
        )}
      </header>

      {stale && detail && (
        <StaleNotice
          name={detail.name}
          load={() => getSkill(ws, detail.name)}
          onReloaded={(fresh) => reset(fresh)}
          onError={setError}
        />
      )}

      <form className="card form skill-form" onSubmit={save} noValidate>
        <ErrorBanner error={error} details={placed.others} />
        <DescriptionField
          value={description}
          errors={fieldErrors("description", local.description)}
          onChange={(value) => edited(() => setDescription(value))}
        />
        {isNew && (
          <NameField
            value={name}
            errors={fieldErrors("name", local.name, name !== "")}
            onChange={(value) => edited(() => setName(value))}
          />
        )}
        {isNew && taken !== null && taken === name && (
          <p className="field-hint" data-testid="name-taken">
            Open the existing <Link href={editHref(ws, taken)}>{taken}</Link> to edit it, or choose another name.
          </p>
        )}
        <InstructionsField
          value={body}
          documentName={documentName}
          documentBytes={documentBytes}
          errors={fieldErrors("instructions", null)}
          onChange={(value) => edited(() => setBody(value))}
        />
        <FileList
          documentName={documentName}
          stored={detail?.files ?? []}
          removed={removed}
          uploads={uploads}
          errors={placed.files}
          uploadProblems={attempted ? problems : {}}
          downloadUrl={detail ? (path) => skillFileUrl(ws, detail.name, path) : null}
          onToggleRemoved={(path, flag) =>
            edited(() =>
              setRemoved((current) => {
                const next = new Set(current);
                if (flag) next.add(path);
                else next.delete(path);
                return next;
              }),
            )
          }
          onAdd={addUploads}
          onUploadPath={(key, path) =>
            edited(() => setUploads((current) => current.map((u) => (u.key === key ? { ...u, path } : u))))
          }
          onDiscard={(key) => edited(() => setUploads((current) => current.filter((u) => u.key !== key)))}
        />
        {fileCount > SKILL_MAX_FILES && (
          <p className="field-error" role="alert">
            A {noun} holds at most {SKILL_MAX_FILES} files; this one would have {fileCount}.
          </p>
        )}
        <div className="form-actions form-actions-split">
          <div className="form-actions">
            <button
              type="submit"
              className="button button-primary"
              disabled={saving || documentBytes > SKILL_DOC_MAX_BYTES}
              aria-busy={saving}
            >
              Save
            </button>
            <p className="form-status" role="status">
              {status}
            </p>
          </div>
          {detail && (
            <InlineConfirm
              action="Remove"
              question={`Remove ${detail.name} and its history?`}
              confirmLabel="Yes, remove"
              danger
              onConfirm={remove}
            />
          )}
        </div>
      </form>
    </>
  );
}

// The API's rule messages are clauses ("the name is empty; …"); under a field they read as sentences.
function sentence(text: string | null): string | null {
  if (text === null) return null;
  const capitalised = text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?]$/.test(capitalised) ? capitalised : `${capitalised}.`;
}

"use client";

import { formatSize } from "@loadout/api/domain/skills/limits";
import { useId } from "react";
import { shortDigest } from "@/lib/format";
import type { SkillFile } from "@/lib/skills/types";
import { DataTable } from "../data-table";
import { DropZone } from "../drop-zone";

export type Upload = { key: string; file: File; path: string };

type FileListProps = {
  documentName: string;
  stored: SkillFile[];
  removed: ReadonlySet<string>;
  uploads: Upload[];
  // The API's refusals by file path, and the console's own checks by upload key.
  errors: Record<string, string[]>;
  uploadProblems: Record<string, string>;
  downloadUrl: ((path: string) => string) | null;
  onToggleRemoved: (path: string, removed: boolean) => void;
  onAdd: (files: File[]) => void;
  onUploadPath: (key: string, path: string) => void;
  onDiscard: (key: string) => void;
};

function FileErrors({ messages }: { messages: string[] | undefined }) {
  if (!messages || messages.length === 0) return null;
  return (
    <ul className="file-errors" role="alert">
      {messages.map((message) => (
        <li key={message}>{message}</li>
      ))}
    </ul>
  );
}

export function FileList(props: FileListProps) {
  const { documentName, stored, removed, uploads, errors, uploadProblems, downloadUrl } = props;
  const inputId = useId();
  const others = stored.filter((file) => file.path !== documentName);
  const documentFile = stored.find((file) => file.path === documentName);

  return (
    <fieldset className="fieldset file-section">
      <legend className="field-label">Files</legend>
      <p className="field-hint">
        References, scripts and assets the instructions point to. A file&apos;s path can hold folders, e.g.{" "}
        <code>references/api.md</code>.
      </p>
      <DataTable className="file-table" columns={["Path", "Size", "Digest", { label: "Actions", hidden: true }]}>
        <tr>
          <th scope="row" className="file-path">
            <code>{documentName}</code> <span className="muted">the description and instructions above</span>
          </th>
          <td className="nowrap">{documentFile ? formatSize(documentFile.size) : "—"}</td>
          <td>{documentFile ? <code title={documentFile.digest}>{shortDigest(documentFile.digest)}</code> : "—"}</td>
          <td className="row-actions">
            {documentFile && downloadUrl && (
              <a className="button button-small button-ghost" href={downloadUrl(documentName)} download>
                Download
              </a>
            )}
          </td>
        </tr>
        {others.map((file) => {
          const isRemoved = removed.has(file.path);
          const replaced = uploads.some((upload) => upload.path === file.path);
          return (
            <tr key={file.path} data-testid="file-row" className={isRemoved ? "row-removed" : undefined}>
              <th scope="row" className="file-path">
                <code>{file.path}</code>
                {isRemoved && <span className="chip">to be removed</span>}
                {replaced && !isRemoved && <span className="chip">to be replaced</span>}
                <FileErrors messages={errors[file.path]} />
              </th>
              <td className="nowrap">{formatSize(file.size)}</td>
              <td>
                <code title={file.digest}>{shortDigest(file.digest)}</code>
              </td>
              <td className="row-actions">
                {downloadUrl && (
                  <a
                    className="button button-small button-ghost"
                    href={downloadUrl(file.path)}
                    download
                    aria-label={`Download ${file.path}`}
                  >
                    Download
                  </a>
                )}
                <button
                  type="button"
                  className="button button-small button-ghost"
                  aria-label={`${isRemoved ? "Keep" : "Remove"} ${file.path}`}
                  onClick={() => props.onToggleRemoved(file.path, !isRemoved)}
                >
                  {isRemoved ? "Keep" : "Remove"}
                </button>
              </td>
            </tr>
          );
        })}
        {uploads.map((upload) => {
          const pathId = `${inputId}-${upload.key}`;
          const problem = uploadProblems[upload.key];
          return (
            <tr key={upload.key} data-testid="file-row" className="row-new">
              <th scope="row" className="file-path">
                <label htmlFor={pathId} className="visually-hidden">
                  Path for {upload.file.name}
                </label>
                <input
                  id={pathId}
                  className="input input-mono"
                  value={upload.path}
                  spellCheck={false}
                  aria-invalid={problem || errors[upload.path] ? true : undefined}
                  onChange={(event) => props.onUploadPath(upload.key, event.target.value)}
                />
                <span className="chip">new</span>
                {problem && (
                  <p className="field-error" role="alert">
                    {problem}
                  </p>
                )}
                <FileErrors messages={errors[upload.path]} />
              </th>
              <td className="nowrap">{formatSize(upload.file.size)}</td>
              <td className="muted">on save</td>
              <td className="row-actions">
                <button
                  type="button"
                  className="button button-small button-ghost"
                  aria-label={`Discard upload ${upload.path || upload.file.name}`}
                  onClick={() => props.onDiscard(upload.key)}
                >
                  Discard
                </button>
              </td>
            </tr>
          );
        })}
      </DataTable>
      <div className="field">
        <label htmlFor={`${inputId}-upload`} className="field-label">
          Add files
        </label>
        <DropZone onFiles={props.onAdd} label="or drop files here" testId="drop-files">
          <input
            id={`${inputId}-upload`}
            type="file"
            multiple
            className="file-input"
            onChange={(event) => {
              props.onAdd(Array.from(event.target.files ?? []));
              event.target.value = "";
            }}
          />
        </DropZone>
      </div>
    </fieldset>
  );
}

"use client";

import Link from "next/link";
import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { ApiError } from "@/lib/api";
import { getSkill, getVersion, listVersions, restoreVersion } from "@/lib/skills/client";
import { documentFileName } from "@/lib/skills/document";
import { fileChanges } from "@/lib/skills/file-changes";
import { editHref, listHref } from "@/lib/skills/links";
import type { SkillDetail, SkillVersion, SkillVersionSummary } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";
import { FileChangeList } from "./file-change-list";
import { InlineConfirm } from "./inline-confirm";
import { LineDiffView } from "./line-diff-view";
import { SkillNotLoaded } from "./skill-not-loaded";
import { VersionTable } from "./version-table";

type Loaded = { current: SkillDetail; versions: SkillVersionSummary[] };

// `version` opens with that version selected (the Activity page links to the version a change made).
export function HistoryView({ name, version: opened }: { name: string; version?: number }) {
  const ws = useWorkspace();
  const { handleAuthError } = useSession();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [loadError, setLoadError] = useState<unknown>(null);
  const [selected, setSelected] = useState<SkillVersion | null>(null);
  const [selecting, setSelecting] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [status, setStatus] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const [current, list] = await Promise.all([getSkill(ws, name), listVersions(ws, name)]);
      setLoaded({ current, versions: list.versions });
      setLoadError(null);
    } catch (caught) {
      if (!handleAuthError(caught)) setLoadError(caught);
    }
  }, [ws, name, handleAuthError]);

  useEffect(() => {
    void load();
  }, [load]);

  const select = async (version: number) => {
    setSelecting(version);
    setError(null);
    setStatus(null);
    try {
      setSelected(await getVersion(ws, name, version));
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setSelecting(null);
    }
  };

  const [openedDone, setOpenedDone] = useState(false);
  useEffect(() => {
    if (!loaded || openedDone || opened === undefined) return;
    setOpenedDone(true);
    if (loaded.versions.some((v) => v.version === opened) && opened !== loaded.current.version) void select(opened);
  });

  const restore = async () => {
    if (!loaded || !selected) return;
    setError(null);
    try {
      const restored = await restoreVersion(ws, name, selected.version, loaded.current.revision);
      setSelected(null);
      setStatus(`Restored version ${selected.version} as version ${restored.version}.`);
    } catch (caught) {
      if (handleAuthError(caught)) return;
      if (caught instanceof ApiError && caught.status === 409) {
        setStatus(null);
        setError(
          new ApiError({
            status: 409,
            code: caught.code,
            message: `${name} was changed elsewhere while you compared. The list now shows its latest version; compare again before restoring.`,
          }),
        );
      } else {
        setError(caught);
        return;
      }
    }
    await load();
  };

  if (loadError) return <SkillNotLoaded name={name} error={loadError} onRetry={() => void load()} />;
  if (!loaded) return <Loading label="Loading history…" />;
  const { current, versions } = loaded;
  const documentName = documentFileName(current.kind);

  return (
    <>
      <header className="page-header">
        <p className="breadcrumb">
          <Link href={listHref(current.kind)}>{current.kind === "persona" ? "Personas" : "Skills"}</Link> /{" "}
          <Link href={editHref(ws, current.name)}>{current.name}</Link>
        </p>
        <h1 className="page-title">History of {current.name}</h1>
        <p className="page-lead">
          Every save keeps the version it replaced. Compare one with the current version (v{current.version}), and
          restore it if you want it back: restoring makes a new version, so nothing is lost.
        </p>
      </header>

      <p className="form-status" role="status">
        {status}
      </p>
      <ErrorBanner error={error} />

      <section className="card" aria-label="Versions">
        <VersionTable
          versions={versions}
          current={current.version}
          selected={selected?.version ?? selecting}
          onSelect={(version) => void select(version)}
        />
      </section>

      {selecting !== null && <Loading label={`Loading version ${selecting}…`} />}
      {selected && selecting === null && (
        <section className="card" aria-labelledby="compare-heading" data-testid="version-compare">
          <div className="card-heading">
            <h2 id="compare-heading" className="card-title">
              Version {selected.version} compared with the current version (v{current.version})
            </h2>
            <InlineConfirm
              action="Restore"
              question={`Restore version ${selected.version} as a new version?`}
              confirmLabel="Yes, restore"
              onConfirm={restore}
            />
          </div>
          {selected.description !== current.description && (
            <dl className="description-change">
              <dt>Description in v{selected.version}</dt>
              <dd>{selected.description}</dd>
              <dt>Current description</dt>
              <dd>{current.description}</dd>
            </dl>
          )}
          <h3 className="section-title">{documentName}</h3>
          <LineDiffView
            before={selected.document}
            after={current.document}
            label={`${documentName}: changes from version ${selected.version} to the current version`}
          />
          <h3 className="section-title">Other files</h3>
          <FileChangeList
            changes={fileChanges(selected.files, current.files, documentName)}
            version={selected.version}
          />
        </section>
      )}
    </>
  );
}

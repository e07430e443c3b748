"use client";

import { useRouter } from "next/navigation";
import { useCallback, useEffect, useState } from "react";
import { ErrorBanner } from "@/components/error-banner";
import { Loading } from "@/components/loading";
import { useSession } from "@/components/session-provider";
import { listProjects, listSkills } from "@/lib/skills/client";
import { importHref, newHref } from "@/lib/skills/links";
import type { Project, SkillKind, SkillSummary } from "@/lib/skills/types";
import { useWorkspace } from "@/lib/workspace";
import { KindTabs } from "./kind-tabs";
import { type Filters, NO_FILTERS, SkillFilters } from "./skill-filters";
import { SkillTable } from "./skill-table";

const PAGE_SIZE = 50;
const SEARCH_DELAY_MS = 250;

type Page = { items: SkillSummary[]; nextCursor: string | null };

function useDebounced<T>(value: T, delay: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), delay);
    return () => clearTimeout(timer);
  }, [value, delay]);
  return debounced;
}

export function SkillList({ kind }: { kind: SkillKind }) {
  const ws = useWorkspace();
  const router = useRouter();
  const { handleAuthError } = useSession();
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const q = useDebounced(filters.q.trim(), SEARCH_DELAY_MS);
  const [page, setPage] = useState<Page | null>(null);
  const [projects, setProjects] = useState<Project[]>([]);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  const { state, project } = filters;
  // The current rows stay until the new ones arrive, so typing in the search box does not flicker.
  const loadFirst = useCallback(
    async (signal?: AbortSignal) => {
      setError(null);
      try {
        setPage(await listSkills(ws, { kind, q, state, project, limit: PAGE_SIZE }, signal));
      } catch (caught) {
        if (signal?.aborted) return;
        if (!handleAuthError(caught)) setError(caught);
      }
    },
    [ws, kind, q, state, project, handleAuthError],
  );

  useEffect(() => {
    const controller = new AbortController();
    void loadFirst(controller.signal);
    return () => controller.abort();
  }, [loadFirst]);

  useEffect(() => {
    listProjects(ws).then(
      (list) => setProjects(list.projects),
      // The project filter is a convenience: without the list it offers "Any project" only.
      (caught: unknown) => void handleAuthError(caught),
    );
  }, [ws, handleAuthError]);

  const loadMore = async () => {
    if (!page?.nextCursor) return;
    setLoadingMore(true);
    try {
      const next = await listSkills(ws, { kind, q, state, project, limit: PAGE_SIZE, cursor: page.nextCursor });
      setPage((current) => ({
        items: [
          ...(current?.items ?? []),
          ...next.items.filter((item) => !current?.items.some((c) => c.id === item.id)),
        ],
        nextCursor: next.nextCursor,
      }));
    } catch (caught) {
      if (!handleAuthError(caught)) setError(caught);
    } finally {
      setLoadingMore(false);
    }
  };

  const replaceItem = useCallback((updated: SkillSummary) => {
    setPage((current) =>
      current ? { ...current, items: current.items.map((item) => (item.id === updated.id ? updated : item)) } : current,
    );
  }, []);

  const noun = kind === "persona" ? "persona" : "skill";
  const filtered = filters.q.trim() !== "" || state !== "" || project !== "";
  const empty = page !== null && page.items.length === 0 && !filtered;
  const actions = (
    <>
      <button type="button" className="button button-primary" onClick={() => router.push(newHref(kind))}>
        New {noun}
      </button>
      <button type="button" className="button" onClick={() => router.push(importHref(kind))}>
        Import
      </button>
    </>
  );

  return (
    <>
      <title>{`${kind === "persona" ? "Personas" : "Skills"} · Loadout`}</title>
      <header className="page-header page-header-row">
        <div className="page-header">
          <h1 className="page-title">Skills and personas</h1>
          <p className="page-lead">
            Each item&apos;s description is offered in every session where it is active; agents fetch the instructions
            and files only when they need them. Choose where each one is active: off, on chosen projects, or global.
          </p>
        </div>
        {!empty && <div className="header-actions">{actions}</div>}
      </header>

      <KindTabs kind={kind} />

      <section className="card" aria-label={kind === "persona" ? "Personas" : "Skills"}>
        {!empty && <SkillFilters value={filters} projects={projects} onChange={setFilters} />}
        {error ? (
          <div className="stack">
            <ErrorBanner error={error} />
            <button type="button" className="button" onClick={() => void loadFirst()}>
              Try again
            </button>
          </div>
        ) : page === null ? (
          <Loading label={`Loading ${noun}s…`} />
        ) : empty ? (
          <div className="empty-state">
            <p className="empty-title">No {noun}s yet</p>
            <p>
              Write one here, or import a <code>{kind === "persona" ? "PERSONA.md" : "SKILL.md"}</code> or a{" "}
              <code>.zip</code> of its folder.
            </p>
            <div className="empty-actions">{actions}</div>
          </div>
        ) : page.items.length === 0 ? (
          <div className="empty-state">
            <p className="empty-title">No {noun}s match these filters</p>
            <button type="button" className="button button-small" onClick={() => setFilters(NO_FILTERS)}>
              Clear filters
            </button>
          </div>
        ) : (
          <>
            <SkillTable items={page.items} onChange={replaceItem} />
            {page.nextCursor && (
              <div className="load-more">
                <button
                  type="button"
                  className="button"
                  onClick={() => void loadMore()}
                  disabled={loadingMore}
                  aria-busy={loadingMore}
                >
                  Load more
                </button>
              </div>
            )}
          </>
        )}
      </section>
    </>
  );
}

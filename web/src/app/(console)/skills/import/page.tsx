"use client";

import Link from "next/link";
import { useRouter, useSearchParams } from "next/navigation";
import { Suspense, useId } from "react";
import { Loading } from "@/components/loading";
import { ArchiveImportForm, PasteImportForm } from "@/components/skills/import-forms";
import { importHref, listHref, parseKind } from "@/lib/skills/links";
import type { SkillKind } from "@/lib/skills/types";

const KINDS: { kind: SkillKind; label: string }[] = [
  { kind: "skill", label: "Skill" },
  { kind: "persona", label: "Persona" },
];

function ImportPage() {
  const kind = parseKind(useSearchParams().get("kind"));
  const router = useRouter();
  const id = useId();
  return (
    <>
      <title>Import · Loadout</title>
      <header className="page-header">
        <p className="breadcrumb">
          <Link href={listHref(kind)}>{kind === "persona" ? "Personas" : "Skills"}</Link>
        </p>
        <h1 className="page-title">Import a {kind}</h1>
        <p className="page-lead">
          Bring in a {kind} you already have. Loadout checks it the same way as one written here: the name, the
          frontmatter, the paths, and anything that looks like a credential. A refused import stores nothing.
        </p>
      </header>

      <fieldset className="fieldset">
        <legend className="field-label">Import as</legend>
        <div className="segmented">
          {KINDS.map((option) => (
            <span key={option.kind} className="segment">
              <input
                id={`${id}-${option.kind}`}
                type="radio"
                name={`${id}-kind`}
                className="segment-input"
                checked={kind === option.kind}
                onChange={() => router.replace(importHref(option.kind))}
              />
              <label htmlFor={`${id}-${option.kind}`} className="segment-label">
                {option.label}
              </label>
            </span>
          ))}
        </div>
      </fieldset>

      <section className="card" aria-labelledby={`${id}-paste`}>
        <h2 id={`${id}-paste`} className="card-title">
          Paste a {kind === "persona" ? "PERSONA.md" : "SKILL.md"}
        </h2>
        <PasteImportForm key={kind} kind={kind} />
      </section>

      <section className="card" aria-labelledby={`${id}-archive`}>
        <h2 id={`${id}-archive`} className="card-title">
          Upload an archive
        </h2>
        <ArchiveImportForm key={kind} kind={kind} />
      </section>
    </>
  );
}

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <ImportPage />
    </Suspense>
  );
}

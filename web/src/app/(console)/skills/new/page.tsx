"use client";

import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { Loading } from "@/components/loading";
import { SkillEditor } from "@/components/skills/skill-editor";
import { parseKind } from "@/lib/skills/links";

function NewSkillPage() {
  const kind = parseKind(useSearchParams().get("kind"));
  return (
    <>
      <title>{`New ${kind} · Loadout`}</title>
      <SkillEditor key={kind} kind={kind} initial={null} />
    </>
  );
}

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <NewSkillPage />
    </Suspense>
  );
}

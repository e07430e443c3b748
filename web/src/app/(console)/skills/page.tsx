"use client";

import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { Loading } from "@/components/loading";
import { SkillList } from "@/components/skills/skill-list";
import { parseKind } from "@/lib/skills/links";

function SkillsPageContent() {
  const kind = parseKind(useSearchParams().get("kind"));
  // Keyed by kind: each tab starts from its own first page and filters.
  return <SkillList key={kind} kind={kind} />;
}

export default function SkillsPage() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <SkillsPageContent />
    </Suspense>
  );
}

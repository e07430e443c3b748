"use client";

import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { Loading } from "@/components/loading";
import { HistoryView } from "@/components/skills/history-view";
import { SkillNotLoaded } from "@/components/skills/skill-not-loaded";

function HistoryPage() {
  const params = useSearchParams();
  const name = params.get("name") ?? "";
  const version = Number(params.get("version"));
  return (
    <>
      <title>{`History${name ? ` of ${name}` : ""} · Loadout`}</title>
      {name ? (
        <HistoryView key={name} name={name} {...(Number.isInteger(version) && version > 0 ? { version } : {})} />
      ) : (
        <SkillNotLoaded name="" error={null} onRetry={() => undefined} />
      )}
    </>
  );
}

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <HistoryPage />
    </Suspense>
  );
}

"use client";

import { useSearchParams } from "next/navigation";
import { Suspense } from "react";
import { Loading } from "@/components/loading";
import { SkillEditor } from "@/components/skills/skill-editor";
import { SkillNotLoaded } from "@/components/skills/skill-not-loaded";
import { useSkill } from "@/components/skills/use-skill";

function EditSkill({ name }: { name: string }) {
  const { load, reload } = useSkill(name);
  if (load.kind === "loading") return <Loading label="Loading…" />;
  if (load.kind === "failed") return <SkillNotLoaded name={name} error={load.error} onRetry={() => void reload()} />;
  return (
    <>
      <title>{`${load.skill.name} · Loadout`}</title>
      <SkillEditor key={load.skill.id} kind={load.skill.kind} initial={load.skill} />
    </>
  );
}

function EditSkillPage() {
  const name = useSearchParams().get("name") ?? "";
  if (!name) return <SkillNotLoaded name="" error={null} onRetry={() => undefined} />;
  return <EditSkill key={name} name={name} />;
}

export default function Page() {
  return (
    <Suspense fallback={<Loading label="Loading…" />}>
      <EditSkillPage />
    </Suspense>
  );
}

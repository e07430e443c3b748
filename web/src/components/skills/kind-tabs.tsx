import Link from "next/link";
import { listHref } from "@/lib/skills/links";
import type { SkillKind } from "@/lib/skills/types";

const TABS: { kind: SkillKind; label: string }[] = [
  { kind: "skill", label: "Skills" },
  { kind: "persona", label: "Personas" },
];

// Tabs that are addresses (`/skills/?kind=persona`), so each list can be bookmarked and shared.
export function KindTabs({ kind }: { kind: SkillKind }) {
  return (
    <div className="tabs" role="tablist" aria-label="Kind">
      {TABS.map((tab) => (
        <Link
          key={tab.kind}
          href={listHref(tab.kind)}
          role="tab"
          aria-selected={tab.kind === kind}
          className="tab"
          replace
        >
          {tab.label}
        </Link>
      ))}
    </div>
  );
}

"use client";

import { ComingSoon } from "@/components/coming-soon";

export default function SkillsPage() {
  return (
    <ComingSoon title="Skills">
      <p>
        Here you will write skills and personas: a <code>SKILL.md</code> or <code>PERSONA.md</code> with a name and a
        description, plus any reference files, or import one from a pasted file or a <code>.zip</code> archive.
      </p>
      <p>
        Each item can be off, on for chosen projects, or on everywhere, and every change keeps the previous version in
        its history so you can restore it.
      </p>
    </ComingSoon>
  );
}

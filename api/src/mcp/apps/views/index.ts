/**
 * Loadout's own MCP Apps views (`io.modelcontextprotocol/ui`, 2026-01-26): self-contained HTML
 * documents the server serves as `ui://loadout/…` resources, composed once at module load from
 * the shared shell, bridge and DOM helpers and each view's script.
 */
import { EDIT_CSS, EDIT_JS } from "./edit-view";
import { viewDocument } from "./shell";
import { SKILLS_CSS, SKILLS_JS } from "./skills-view";

export const SKILLS_VIEW_URI = "ui://loadout/skills.html";
export const SKILL_EDIT_VIEW_URI = "ui://loadout/skill-edit.html";

export interface LoadoutView {
  uri: string;
  name: string;
  title: string;
  description: string;
  html: string;
}

export const LOADOUT_VIEWS: readonly LoadoutView[] = [
  {
    uri: SKILLS_VIEW_URI,
    name: "loadout_skills_view",
    title: "Loadout skills",
    description: "Shows a skills result: the list as a searchable browser, or one skill's SKILL.md, files and digests.",
    html: viewDocument({
      title: "Loadout skills",
      appName: "loadout-skills-view",
      fallback:
        "Loadout skills: this view shows a skills result once the host sends one. The tool's text result has the same information.",
      css: SKILLS_CSS,
      script: SKILLS_JS,
      markdown: true,
    }),
  },
  {
    uri: SKILL_EDIT_VIEW_URI,
    name: "loadout_skill_edit_view",
    title: "Loadout skill edit",
    description: "Shows what a skill_edit call changed: each file's diff.",
    html: viewDocument({
      title: "Loadout skill edit",
      appName: "loadout-skill-edit-view",
      fallback:
        "Loadout skill edit: this view shows what an edit changed once the host sends the result. The tool's text result lists the files.",
      css: EDIT_CSS,
      script: EDIT_JS,
    }),
  },
];

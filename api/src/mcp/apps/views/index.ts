// Placeholder written by the lead so the server side compiles; the views' author replaces this file.
export const SKILLS_VIEW_URI = "ui://loadout/skills.html";
export const SKILL_EDIT_VIEW_URI = "ui://loadout/skill-edit.html";

const doc = (title: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head><body><p>${title}</p></body></html>`;

export const LOADOUT_VIEWS: readonly { uri: string; name: string; title: string; description: string; html: string }[] = [
  { uri: SKILLS_VIEW_URI, name: "loadout_skills_view", title: "Skills", description: "Skills browser and skill view.", html: doc("Skills") },
  { uri: SKILL_EDIT_VIEW_URI, name: "loadout_skill_edit_view", title: "Skill edit", description: "What an edit changed.", html: doc("Skill edit") },
];

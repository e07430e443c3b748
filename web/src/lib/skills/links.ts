import type { SkillKind } from "./types";

// Console pages of the static export: one page per view, the item named in the query string.

export function listHref(kind: SkillKind): string {
  return kind === "persona" ? "/skills/?kind=persona" : "/skills/";
}

// Item links name their workspace, so a team item's link can be shared and opens in that team.
const inWorkspace = (ws: string) => `&ws=${encodeURIComponent(ws)}`;

export function editHref(ws: string, name: string): string {
  return `/skills/edit/?name=${encodeURIComponent(name)}${inWorkspace(ws)}`;
}

export function newHref(kind: SkillKind): string {
  return `/skills/new/?kind=${kind}`;
}

export function importHref(kind: SkillKind): string {
  return `/skills/import/?kind=${kind}`;
}

export function historyHref(ws: string, name: string, version?: number): string {
  return `/skills/history/?name=${encodeURIComponent(name)}${version ? `&version=${version}` : ""}${inWorkspace(ws)}`;
}

export function parseKind(value: string | null): "skill" | "persona" {
  return value === "persona" ? "persona" : "skill";
}

import type { SkillKind } from "./types";

// Console pages of the static export: one page per view, the item named in the query string.

export function listHref(kind: SkillKind): string {
  return kind === "persona" ? "/skills/?kind=persona" : "/skills/";
}

export function editHref(name: string): string {
  return `/skills/edit/?name=${encodeURIComponent(name)}`;
}

export function newHref(kind: SkillKind): string {
  return `/skills/new/?kind=${kind}`;
}

export function importHref(kind: SkillKind): string {
  return `/skills/import/?kind=${kind}`;
}

export function historyHref(name: string, version?: number): string {
  return `/skills/history/?name=${encodeURIComponent(name)}${version ? `&version=${version}` : ""}`;
}

export function parseKind(value: string | null): "skill" | "persona" {
  return value === "persona" ? "persona" : "skill";
}

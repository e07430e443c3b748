import { api } from "@/lib/api";
import type {
  CreateSkillInput,
  Project,
  ProjectList,
  SkillDetail,
  SkillKind,
  SkillList,
  SkillState,
  SkillVersion,
  SkillVersionList,
  UpdateSkillInput,
} from "./types";

// Paths of the skills REST API (docs/skills-api.md) for one workspace.

const base = (ws: string) => `/v1/workspaces/${encodeURIComponent(ws)}`;
const skillPath = (ws: string, name: string) => `${base(ws)}/skills/${encodeURIComponent(name)}`;

export type SkillListQuery = {
  kind: SkillKind;
  q?: string;
  state?: SkillState | "";
  project?: string;
  cursor?: string | null;
  limit?: number;
};

export function listSkills(ws: string, query: SkillListQuery, signal?: AbortSignal): Promise<SkillList> {
  const params = new URLSearchParams({ kind: query.kind });
  if (query.q) params.set("q", query.q);
  if (query.state) params.set("state", query.state);
  if (query.project) params.set("project", query.project);
  if (query.cursor) params.set("cursor", query.cursor);
  if (query.limit) params.set("limit", String(query.limit));
  return api.get<SkillList>(`${base(ws)}/skills?${params}`, signal ? { signal } : undefined);
}

export const getSkill = (ws: string, name: string) => api.get<SkillDetail>(skillPath(ws, name));

export const createSkill = (ws: string, input: CreateSkillInput) => api.post<SkillDetail>(`${base(ws)}/skills`, input);

export const updateSkill = (ws: string, name: string, input: UpdateSkillInput) =>
  api.patch<SkillDetail>(skillPath(ws, name), input);

export const removeSkill = (ws: string, name: string, revision: number) =>
  api.delete(`${skillPath(ws, name)}?revision=${revision}`);

export const importSkillText = (ws: string, kind: SkillKind, text: string) =>
  api.post<SkillDetail>(`${base(ws)}/skills/import`, { kind, text });

export const importSkillArchive = (ws: string, kind: SkillKind, archive: Blob) =>
  api.postBytes<SkillDetail>(`${base(ws)}/skills/import?kind=${kind}`, archive, "application/zip");

export function skillFileUrl(ws: string, name: string, path: string, version?: number): string {
  const versionPart = version === undefined ? "" : `/versions/${version}`;
  return `${skillPath(ws, name)}${versionPart}/file?path=${encodeURIComponent(path)}`;
}

export const listVersions = (ws: string, name: string) => api.get<SkillVersionList>(`${skillPath(ws, name)}/versions`);

export const getVersion = (ws: string, name: string, version: number) =>
  api.get<SkillVersion>(`${skillPath(ws, name)}/versions/${version}`);

export const restoreVersion = (ws: string, name: string, version: number, revision: number) =>
  api.post<SkillDetail>(`${skillPath(ws, name)}/versions/${version}/restore`, { revision });

export const listProjects = (ws: string) => api.get<ProjectList>(`${base(ws)}/projects`);

export const addProject = (ws: string, path: string) => api.post<Project>(`${base(ws)}/projects`, { path });

export const removeProject = (ws: string, id: string) => api.delete(`${base(ws)}/projects/${encodeURIComponent(id)}`);

"use client";

import { useId } from "react";
import type { Project, SkillState } from "@/lib/skills/types";

export type Filters = { q: string; state: SkillState | ""; project: string };

export const NO_FILTERS: Filters = { q: "", state: "", project: "" };

type SkillFiltersProps = {
  value: Filters;
  projects: Project[];
  onChange: (next: Filters) => void;
};

export function SkillFilters({ value, projects, onChange }: SkillFiltersProps) {
  const id = useId();
  return (
    <search className="filters">
      <div className="field filter-search">
        <label htmlFor={`${id}-q`} className="field-label">
          Search
        </label>
        <input
          id={`${id}-q`}
          type="search"
          className="input"
          placeholder="Name or description"
          value={value.q}
          onChange={(event) => onChange({ ...value, q: event.target.value })}
        />
      </div>
      <div className="field">
        <label htmlFor={`${id}-state`} className="field-label">
          State
        </label>
        <select
          id={`${id}-state`}
          className="input"
          value={value.state}
          onChange={(event) => onChange({ ...value, state: parseState(event.target.value) })}
        >
          <option value="">Any state</option>
          <option value="global">Global</option>
          <option value="projects">Projects</option>
          <option value="off">Off</option>
        </select>
      </div>
      <div className="field">
        <label htmlFor={`${id}-project`} className="field-label">
          Project
        </label>
        <select
          id={`${id}-project`}
          className="input"
          value={value.project}
          onChange={(event) => onChange({ ...value, project: event.target.value })}
        >
          <option value="">Any project</option>
          {projects.map((project) => (
            <option key={project.id} value={project.path}>
              {project.path}
            </option>
          ))}
        </select>
      </div>
    </search>
  );
}

function parseState(value: string): SkillState | "" {
  return value === "off" || value === "projects" || value === "global" ? value : "";
}

"use client";

import type { SkillSummary } from "@/lib/skills/types";
import { SkillRow } from "./skill-row";

type SkillTableProps = {
  items: SkillSummary[];
  onChange: (item: SkillSummary) => void;
};

export function SkillTable({ items, onChange }: SkillTableProps) {
  return (
    <div className="table-wrap">
      <table className="table skill-table">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Description</th>
            <th scope="col">Files</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {items.map((item) => (
            <SkillRow key={item.id} item={item} onChange={onChange} />
          ))}
        </tbody>
      </table>
    </div>
  );
}

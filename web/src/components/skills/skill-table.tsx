"use client";

import type { SkillSummary } from "@/lib/skills/types";
import { DataTable } from "../data-table";
import { SkillRow } from "./skill-row";

type SkillTableProps = {
  items: SkillSummary[];
  onChange: (item: SkillSummary) => void;
};

export function SkillTable({ items, onChange }: SkillTableProps) {
  return (
    <DataTable
      className="skill-table"
      columns={["Name", "Description", "Files", "State", { label: "Actions", hidden: true }]}
    >
      {items.map((item) => (
        <SkillRow key={item.id} item={item} onChange={onChange} />
      ))}
    </DataTable>
  );
}

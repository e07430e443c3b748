"use client";

import { useId } from "react";
import type { SkillState } from "@/lib/skills/types";

const OPTIONS: { value: SkillState; hint: string }[] = [
  { value: "off", hint: "Not offered in any session" },
  { value: "projects", hint: "Active only in sessions on the chosen projects" },
  { value: "global", hint: "Active in every session" },
];

type StateControlProps = {
  // The radio group is named by this element (the item's name in its row).
  labelledBy: string;
  value: SkillState;
  disabled?: boolean;
  onChange: (next: SkillState) => void;
};

// One three-state control over the API's separate `enabled` and `scope`: off / projects / global.
export function StateControl({ labelledBy, value, disabled, onChange }: StateControlProps) {
  const name = useId();
  return (
    <div className="segmented" role="radiogroup" aria-labelledby={labelledBy} aria-disabled={disabled || undefined}>
      {OPTIONS.map((option) => {
        const id = `${name}-${option.value}`;
        return (
          <span key={option.value} className="segment">
            <input
              id={id}
              type="radio"
              className="segment-input"
              name={name}
              value={option.value}
              checked={value === option.value}
              disabled={disabled}
              onChange={() => onChange(option.value)}
            />
            <label htmlFor={id} className={`segment-label segment-${option.value}`} title={option.hint}>
              {option.value}
            </label>
          </span>
        );
      })}
    </div>
  );
}

import type { ToolDefinitionView } from "./types";

// A tool definition as text to compare line by line: JSON pretty-printed with keys sorted, so a
// reordered schema shows no change and a changed one shows only what changed.

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .filter(([, item]) => item !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([key, item]) => [key, sorted(item)]),
    );
  }
  return value;
}

export function prettyJson(value: unknown): string {
  return `${JSON.stringify(sorted(value ?? {}), null, 2)}\n`;
}

// Descriptions are prose, often one long line: compared a sentence per line, so a changed sentence
// stands out instead of the whole paragraph.
export function descriptionText(definition: ToolDefinitionView | null): string {
  if (!definition) return "";
  const sentences = definition.description
    .split("\n")
    .flatMap((line) => line.split(/(?<=[.!?])\s+(?=\S)/))
    .map((line) => line.trimEnd());
  const title = definition.title ? [`Title: ${definition.title}`] : [];
  return `${[...title, ...sentences].join("\n")}\n`;
}

export function schemaText(definition: ToolDefinitionView | null): string {
  return definition ? prettyJson(definition.inputSchema) : "";
}

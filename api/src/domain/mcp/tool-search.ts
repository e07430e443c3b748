/**
 * Lazy tools (DESIGN.md "Lazy tools"): instead of every upstream tool's definition in every
 * `tools/list`, a session may offer `find_tools` and `call_tool`. These are the pure rules: how a
 * query ranks tools, and what a definition costs a client in tokens.
 */

/** A tool as the search reads it: the definition `tools/list` would have listed. */
export interface SearchableTool {
  name: string;
  title?: string;
  description?: string;
}

/**
 * A definition's estimated cost in a model's context: its JSON at about four characters a token,
 * the rule of thumb for English text and JSON with common tokenizers. An estimate to compare
 * catalogs by, not a count (no tokenizer is shipped for it).
 */
export function estimatedTokens(definition: unknown): number {
  return Math.ceil(JSON.stringify(definition).length / 4);
}

/**
 * What a whole listing costs: the sum of its definitions' estimates, as find_tools reports a
 * catalog's. The Connect page compares a session's full `tools/list` with its lazy one by it.
 */
export function listingTokens(definitions: readonly unknown[]): number {
  let total = 0;
  for (const definition of definitions) total += estimatedTokens(definition);
  return total;
}

const words = (text: string) =>
  text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);

/** A catalog's tools with the words of their name, title and description split once. */
export interface ToolIndex<T extends SearchableTool> {
  tools: readonly T[];
  fields: [string[], string[], string[]][];
}

/** Splits a catalog's words once, for every search of it (a catalog is kept while it holds). */
export function indexTools<T extends SearchableTool>(tools: readonly T[]): ToolIndex<T> {
  return { tools, fields: tools.map((t) => [words(t.name), words(t.title ?? ""), words(t.description ?? "")]) };
}

const WEIGHTS = [6, 3, 1] as const;

/**
 * The tools matching a query, best first, at most `limit`: a word of the query in a tool's name
 * counts most, then in its title, then in its description (a word that is a prefix of one
 * counts half). Ties keep the listing's order, so the answer is the same for the same catalog.
 * An empty query matches every tool, in listing order.
 */
export function rankTools<T extends SearchableTool>(index: ToolIndex<T>, query: string, limit: number): T[] {
  const asked = [...new Set(words(query))];
  if (asked.length === 0) return index.tools.slice(0, limit);
  const scored: { tool: T; score: number; index: number }[] = [];
  index.fields.forEach((fields, i) => {
    let score = 0;
    for (const word of asked)
      fields.forEach((field, f) => {
        if (field.includes(word)) score += WEIGHTS[f] as number;
        else if (field.some((w) => w.startsWith(word))) score += (WEIGHTS[f] as number) / 2;
      });
    if (score > 0) scored.push({ tool: index.tools[i] as T, score, index: i });
  });
  scored.sort((a, b) => b.score - a.score || a.index - b.index);
  return scored.slice(0, limit).map((s) => s.tool);
}

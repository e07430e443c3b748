import { WHOLE_TOOL } from "@loadout/workers/plan";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { ToolView } from "../apps/ui";
import { proxiedToolName } from "./tool-names";

export { planAllows, WHOLE_TOOL } from "@loadout/workers/plan";

/** What an upstream says about one of its tools (the part Loadout keeps). */
export interface ToolDefinition {
  name: string;
  title?: string | null;
  description?: string | null;
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown> | null;
}

/**
 * JSON with object keys sorted, so that the same definition always hashes the same whatever order
 * the upstream serialised it in. (Ten lines; not worth a dependency.)
 */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}

/**
 * The pin of a tool: SHA-256 of its name, description and input schema, and of the MCP Apps view
 * it links to when it links one (a tool without a view hashes as it always did).
 */
export function toolDefinitionHash(
  tool: Pick<ToolDefinition, "name" | "description" | "inputSchema"> & { ui?: ToolView | null },
): string {
  const text = canonicalJson({
    name: tool.name,
    description: tool.description ?? "",
    inputSchema: tool.inputSchema,
    ...(tool.ui ? { ui: tool.ui } : {}),
  });
  return `sha256:${bytesToHex(sha256(new TextEncoder().encode(text)))}`;
}

export type PinState = "approved" | "new" | "changed";

export function pinState(hash: string, approvedHash: string | null): PinState {
  if (approvedHash === null) return "new";
  return approvedHash === hash ? "approved" : "changed";
}

/**
 * The values of a tool's `action` argument, when its input schema declares one as an enum (or as
 * a `oneOf`/`anyOf` of constants); null when it has none.
 */
export function actionValues(inputSchema: Record<string, unknown>): string[] | null {
  const properties = inputSchema.properties as Record<string, Record<string, unknown>> | undefined;
  const action = properties?.action;
  if (!action || typeof action !== "object") return null;
  if (Array.isArray(action.enum)) {
    const values = action.enum.filter((v): v is string => typeof v === "string");
    return values.length > 0 ? values : null;
  }
  const options = (action.oneOf ?? action.anyOf) as Record<string, unknown>[] | undefined;
  if (Array.isArray(options)) {
    const values = options.map((o) => o?.const).filter((v): v is string => typeof v === "string");
    return values.length > 0 && values.length === options.length ? values : null;
  }
  if (typeof action.const === "string") return [action.const];
  return null;
}

/**
 * Why a plan-safe list cannot be saved for a tool, or null. A tool with an `action` enum takes
 * exact values of it; a tool without one takes `["*"]` or nothing.
 */
export function planSafeProblem(inputSchema: Record<string, unknown>, list: readonly string[]): string | null {
  if (list.length === 0) return null;
  if (new Set(list).size !== list.length) return "planSafeActions lists a value twice";
  const actions = actionValues(inputSchema);
  if (actions === null) {
    return list.length === 1 && list[0] === WHOLE_TOOL
      ? null
      : `this tool has no "action" argument: planSafeActions is ["*"] (the whole tool) or []`;
  }
  const unknown = list.filter((a) => !actions.includes(a));
  if (unknown.length > 0)
    return `${unknown.map((a) => JSON.stringify(a)).join(", ")} ${unknown.length === 1 ? "is not an action" : "are not actions"} of this tool; its actions are ${actions.map((a) => JSON.stringify(a)).join(", ")}`;
  return null;
}

/** The description a plan-mode session sees: the upstream's, with what it may do appended. */
export function planDescription(description: string, list: readonly string[]): string {
  if (list.includes(WHOLE_TOOL)) return description;
  const allowed = list.map((a) => `"${a}"`).join(", ");
  return `${description}${description ? "\n\n" : ""}[Plan mode: only action ${allowed} ${list.length === 1 ? "is" : "are"} allowed.]`;
}

export interface NamedTool<T extends ToolDefinition> {
  tool: T;
  exposedName: string;
}

/**
 * Names a server's tools for clients (`<slug>_<tool>`), in the upstream's order. Two tools whose
 * names map to the same client name (`get.user`, `get_user`) cannot both be addressed: the first
 * keeps the name and the other is refused with a reason, never guessed at.
 */
export function nameTools<T extends ToolDefinition>(
  slug: string,
  tools: readonly T[],
  /** The team's slug for a team's server (its tools are named `<team>_<slug>_<tool>`). */
  team: string | null = null,
): { named: NamedTool<T>[]; refused: { name: string; reason: string }[] } {
  const named: NamedTool<T>[] = [];
  const refused: { name: string; reason: string }[] = [];
  const taken = new Map<string, string>();
  const seen = new Set<string>();
  for (const tool of tools) {
    if (seen.has(tool.name)) {
      refused.push({ name: tool.name, reason: "the server lists this tool twice" });
      continue;
    }
    seen.add(tool.name);
    const exposedName = proxiedToolName(slug, tool.name, team);
    const holder = taken.get(exposedName);
    if (holder !== undefined) {
      refused.push({ name: tool.name, reason: `its name maps to ${exposedName}, as "${holder}" does` });
      continue;
    }
    taken.set(exposedName, tool.name);
    named.push({ tool, exposedName });
  }
  return { named, refused };
}

/** Text a proxied result may carry by default; the rest is cut with a note. */
export const MAX_RESULT_TEXT = 1024 * 1024;

interface ContentBlock {
  type: string;
  text?: string;
  [key: string]: unknown;
}

/**
 * Bounds a tool result's text to `limit` characters in all (text blocks and embedded text
 * resources), cutting the block that crosses it and dropping later text, with a note saying so.
 * Binary blocks (images, audio, blobs) pass through untouched.
 */
export function boundResult<T extends { content?: ContentBlock[]; structuredContent?: unknown }>(
  result: T,
  limit = MAX_RESULT_TEXT,
): T {
  if (!Array.isArray(result.content)) return result;
  let budget = limit;
  let cut = 0;
  const content: ContentBlock[] = [];
  for (const block of result.content) {
    if (block.type === "text" && typeof block.text === "string") {
      if (block.text.length <= budget) {
        budget -= block.text.length;
        content.push(block);
      } else {
        cut += block.text.length - budget;
        if (budget > 0) content.push({ ...block, text: block.text.slice(0, budget) });
        budget = 0;
      }
    } else {
      content.push(block);
    }
  }
  let structuredContent = result.structuredContent;
  if (structuredContent !== undefined && JSON.stringify(structuredContent).length > limit) {
    structuredContent = undefined;
    cut += 1;
  }
  if (cut === 0) return result;
  const bounded = { ...result, content } as T;
  if (structuredContent === undefined) delete (bounded as { structuredContent?: unknown }).structuredContent;
  content.push({
    type: "text",
    text: `[Loadout cut this result: the server returned more than ${Math.round(limit / 1024)} KiB of text${structuredContent === undefined && result.structuredContent !== undefined ? " (its structured content was dropped too)" : ""}. Ask for less, for example a narrower query or a page of results.]`,
  });
  return bounded;
}

/**
 * What became of an MCP call, as the activity log and the usage view count it. Refusals are told
 * apart from errors so a user sees what their agents tried and could not do: an item not active
 * for the session (scope or switched off), a plan-mode refusal, a tool withheld by its pin (not
 * approved, or changed since approval).
 */
export const OUTCOMES = ["ok", "error", "tool_error", "not_active", "plan_refused", "withheld"] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type Refusal = Extract<Outcome, "not_active" | "plan_refused" | "withheld">;
/** What a tool's own result can say; `error` is a protocol error, which has no result. */
export type ResultOutcome = Exclude<Outcome, "error">;

/** The refusal a tool's error text states, or null for any other error. Matches Loadout's own wording. */
export function refusalOf(text: string): Refusal | null {
  if (text.includes("not active for this session")) return "not_active";
  if (/not allowed in (plan|goal) mode|may only run .* in (plan|goal) mode/s.test(text)) return "plan_refused";
  if (text.includes("not approved yet") || text.includes("changed since it was approved")) return "withheld";
  return null;
}

/** The outcome of a tool result: ok, a refusal, or a tool error. */
export function outcomeOfToolResult(result: { isError?: boolean; content?: { text?: string }[] }): ResultOutcome {
  if (!result.isError) return "ok";
  for (const block of result.content ?? []) {
    const refusal = block.text ? refusalOf(block.text) : null;
    if (refusal) return refusal;
  }
  return "tool_error";
}

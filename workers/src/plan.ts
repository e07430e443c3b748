/** The whole tool is safe in plan mode: the value for a tool without an `action` enum. */
export const WHOLE_TOOL = "*";

/**
 * Whether a call may run in plan or goal mode: the tool's list holds `*`, or the call's `action`
 * argument is exactly one of the listed values. An empty list allows nothing.
 */
export function planAllows(list: readonly string[], args: Record<string, unknown> | undefined): boolean {
  if (list.length === 0) return false;
  if (list.includes(WHOLE_TOOL)) return true;
  const action = args?.action;
  return typeof action === "string" && list.includes(action);
}

/**
 * Whether a tool's definition suggests it reads secrets or the process environment: worth a second
 * look before a whole server's tools are approved at once. Advice for the console only; nothing is
 * refused on it, and a tool that says nothing of the kind may still do it.
 */

export interface ToolDefinitionText {
  name: string;
  title?: string | null | undefined;
  description: string;
}

export type SensitiveReason = "environment" | "secrets";

const RULES: ReadonlyArray<readonly [SensitiveReason, RegExp]> = [
  [
    "environment",
    /\benv(?:ironment)?\b|\benvironment variables?\b|\bprocess\.env\b|(?:^|\s)\.env\b|\bgetenv\b|\bdotenv\b/,
  ],
  [
    "secrets",
    /\bsecrets?\b|\bpasswords?\b|\bpasswd\b|\bcredentials?\b|\bapi ?keys?\b|\bprivate keys?\b|\bssh keys?\b|\bkeychain\b|\b(?:access|auth|bearer|refresh|session|api) tokens?\b/,
  ],
];

/** Names and prose as words: `get_env`, `get-env` and `getEnv` all read "get env". */
function words(text: string): string {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[_-]+/g, " ")
    .toLowerCase();
}

/** Why the tool looks sensitive (environment first), or null when its definition suggests neither. */
export function sensitiveReason(tool: ToolDefinitionText): SensitiveReason | null {
  const text = words(`${tool.name} ${tool.title ?? ""} ${tool.description}`);
  for (const [reason, pattern] of RULES) if (pattern.test(text)) return reason;
  return null;
}

/** The tools, among those given and in their order, whose definitions suggest reading secrets or the environment. */
export function sensitiveTools<T extends ToolDefinitionText>(tools: readonly T[]): T[] {
  return tools.filter((tool) => sensitiveReason(tool) !== null);
}

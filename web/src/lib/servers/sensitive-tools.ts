import type { ToolView } from "./types";

/**
 * Words in a tool's name or description that suggest it reads secrets or the process environment:
 * worth a second look before approving a whole server at once. Advice only; nothing is refused.
 */
const SENSITIVE =
  /(?:\b|_)(?:secrets?|passwords?|credentials?|tokens?|api[ _-]?keys?|private[ _-]?keys?|env|environment(?: variables?)?|\.env|process\.env)(?:\b|_)/i;

/** The tools, among those given, whose definitions suggest reading secrets or the environment. */
export function sensitiveTools(tools: ToolView[]): ToolView[] {
  return tools.filter((tool) => SENSITIVE.test(`${tool.name} ${tool.title ?? ""} ${tool.description}`));
}

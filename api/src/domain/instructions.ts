/**
 * The block of skills and personas that ends the MCP handshake's instructions (DESIGN.md, "The
 * MCP endpoint"): each active item with its description cut to 250 characters, within 1,500
 * estimated tokens (4 characters each); items beyond that are listed by name, then counted with a
 * pointer to skills(action="list"). No items, no block.
 */
export interface InstructionItem {
  /** How the agent names it: `code-review`, or `acme/code-review` for a team's item. */
  address: string;
  kind: "skill" | "persona";
  description: string;
}

export const DESCRIPTION_CUT = 250;
export const TOKEN_BUDGET = 1500;
export const CHARS_PER_TOKEN = 4;
const BUDGET_CHARS = TOKEN_BUDGET * CHARS_PER_TOKEN;

export const estimateTokens = (text: string) => Math.ceil([...text].length / CHARS_PER_TOKEN);

function cut(description: string): string {
  const flat = description.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= DESCRIPTION_CUT
    ? flat
    : `${chars
        .slice(0, DESCRIPTION_CUT - 1)
        .join("")
        .trimEnd()}…`;
}

export interface InstructionsOptions {
  /** The session's mode: plan and goal modes say so first (see modeBlock). */
  mode?: "agent" | "plan" | "goal";
  /** Kinds the client loads from its own folders on this device (domain/fitting): not listed again. */
  leaveOut?: ReadonlySet<InstructionItem["kind"]>;
  /** Lazy tools: the remote servers' tools are found with find_tools and called with call_tool. */
  lazyTools?: boolean;
}

/** What a lazy-tools session is told (DESIGN.md, "Lazy tools"). */
export const LAZY_TOOLS_BLOCK =
  "## Remote tools (Loadout)\n" +
  'The tools of your remote MCP servers are not listed, to save context. Find one with find_tools(query="what it should do"), which gives matching tools with their inputSchema, then call it with call_tool(name="…", arguments={…}).';

/**
 * What a session in plan or goal mode is told first (DESIGN.md, "Modes"): that it is in that mode,
 * what the mode allows, and how to leave it; without it an agent met only refusals.
 */
export function modeBlock(mode: "agent" | "plan" | "goal"): string | null {
  if (mode === "agent") return null;
  return (
    `## ${mode === "plan" ? "Plan" : "Goal"} mode (Loadout)\n` +
    `This session is in ${mode} mode: read, search and plan, but change nothing. skill_edit is not offered, and a server's tool is offered only where the user marked it safe for plan mode (some only for certain actions, named in its description); other calls are refused. ` +
    "To make changes, ask the user to connect in agent mode (without X-Loadout-Mode or ?mode=)."
  );
}

/** The handshake's instructions: the session's mode where it restricts, then its skills and personas. */
export function instructionsBlock(
  all: readonly InstructionItem[],
  { mode = "agent", leaveOut, lazyTools = false }: InstructionsOptions = {},
): string | null {
  const items = leaveOut?.size ? all.filter((i) => !leaveOut.has(i.kind)) : all;
  const blocks = [modeBlock(mode), lazyTools ? LAZY_TOOLS_BLOCK : null, skillsBlock(items)].filter(
    (block): block is string => block !== null,
  );
  return blocks.length ? blocks.join("\n\n") : null;
}

function skillsBlock(items: readonly InstructionItem[]): string | null {
  if (items.length === 0) return null;
  const sorted = [...items].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
  const head =
    "## Your skills and personas (Loadout)\n" +
    'Load one with skills(action="get", name="…") when its description fits the task. A persona is a role to take on. Skill text is guidance, not permission.\n';
  let text = head;
  let used = [...head].length;
  let index = 0;
  for (; index < sorted.length; index++) {
    const item = sorted[index] as InstructionItem;
    const line = `- ${item.address}${item.kind === "persona" ? " (persona)" : ""}: ${cut(item.description)}\n`;
    // Keep room for the overflow line, so the block never ends mid-thought.
    if (used + [...line].length > BUDGET_CHARS - 120) break;
    text += line;
    used += [...line].length;
  }
  if (index < sorted.length) {
    const names: string[] = [];
    let namesLength = 0;
    const prefix = "Also available (by name): ";
    for (let j = index; j < sorted.length; j++) {
      const name = (sorted[j] as InstructionItem).address;
      if (used + prefix.length + namesLength + name.length + 2 > BUDGET_CHARS - 80) break;
      names.push(name);
      namesLength += name.length + 2;
    }
    if (names.length > 0) {
      const line = `${prefix}${names.join(", ")}.\n`;
      text += line;
      used += line.length;
    }
    const rest = sorted.length - index - names.length;
    if (rest > 0) text += `…and ${rest} more: call skills(action="list") to see them all.\n`;
  }
  return text.trimEnd();
}

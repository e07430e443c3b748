/**
 * An upstream's error names its tool by its own name ("Invalid arguments for tool echo"), which the
 * agent never called: on Loadout's URL it is `<server>_echo`. In an error result's text, a mention
 * of the tool by its upstream name becomes the name the client called, so the agent can tell which
 * of its tools to fix the call of. Only "tool <name>" mentions are touched (quoted or not), never
 * other words that happen to equal the name.
 */

type ResultLike = { isError?: boolean; content?: unknown[] };

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The text with "tool <upstream>" mentions naming `called` instead. */
export function renameToolMentions(text: string, upstream: string, called: string): string {
  if (upstream === called || !text.includes(upstream)) return text;
  const mention = new RegExp(`(\\btool\\s+["'\`]?)${escapeRegExp(upstream)}(?![\\w-])`, "gi");
  return text.replace(mention, (_, lead: string) => `${lead}${called}`);
}

/** An error result whose text blocks name the tool as the client called it; any other result as it is. */
export function nameAsCalled<T extends ResultLike>(result: T, upstream: string, called: string): T {
  if (!result.isError || upstream === called || !Array.isArray(result.content)) return result;
  let changed = false;
  const content = result.content.map((block) => {
    if (typeof block !== "object" || block === null) return block;
    const { type, text } = block as { type?: unknown; text?: unknown };
    if (type !== "text" || typeof text !== "string") return block;
    const renamed = renameToolMentions(text, upstream, called);
    if (renamed === text) return block;
    changed = true;
    return { ...block, text: renamed };
  });
  return changed ? { ...result, content } : result;
}

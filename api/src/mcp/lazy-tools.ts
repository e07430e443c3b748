import type { z } from "zod";
import { estimatedTokens, indexTools, rankTools, type ToolIndex } from "../domain/mcp/tool-search";
import { silentLogger } from "../logger";
import type { McpSession } from "../services/mcp/catalog";
import { findProxiedTool, type ProxiedTool, presentFound, proxiedCatalog } from "../services/mcp/proxied";
import type { ServerDeps } from "../services/servers/upstreams";
import { builtInTools } from "./builtin-tools";
import { type LoadoutTool, parsedInput, upstreamTool } from "./registry";
import { failure, textResult } from "./results";
import { CALL_TOOL_ANNOTATIONS, CallToolInput, FIND_TOOLS_ANNOTATIONS, FindToolsInput } from "./tools";

/** What find_tools answers when no limit is given. */
const DEFAULT_LIMIT = 10;

type Definition = ProxiedTool["definition"];
interface Searchable {
  index: ToolIndex<Definition>;
  tokens: Map<Definition, number>;
  catalogTokens: number;
}

/**
 * A catalog made searchable once: the cache hands out the same array while the catalog holds,
 * and splitting a thousand tools' words and measuring them cost more than the search itself.
 */
const searchables = new WeakMap<ProxiedTool[], Searchable>();
function searchable(catalog: ProxiedTool[]): Searchable {
  let made = searchables.get(catalog);
  if (!made) {
    const definitions = catalog.map((t) => t.definition);
    const tokens = new Map(definitions.map((d) => [d, estimatedTokens(d)] as const));
    let catalogTokens = 0;
    for (const n of tokens.values()) catalogTokens += n;
    made = { index: indexTools(definitions), tokens, catalogTokens };
    searchables.set(catalog, made);
  }
  return made;
}

/**
 * The two tools of lazy mode (`?tools=lazy`, DESIGN.md "Lazy tools"): the session's upstream
 * tools are not listed; `find_tools` ranks them for a query, with the definitions `tools/list`
 * would have given and each one's estimated token cost, and `call_tool` calls one by name with
 * every check of a direct call (it is the same registry tool: scope, pins, the plan-safe layers,
 * sent once).
 */
export function lazyTools(deps: ServerDeps): LoadoutTool[] {
  const findTools: LoadoutTool<z.infer<typeof FindToolsInput>> = {
    name: "find_tools",
    title: FIND_TOOLS_ANNOTATIONS.title,
    description:
      "Find the tools of your remote MCP servers (not listed here, to save context): give words of what the tool should do; each match comes with its inputSchema. Then call it with call_tool.",
    input: FindToolsInput,
    annotations: FIND_TOOLS_ANNOTATIONS,
    run: async ({ ctx, session }, { query, limit }) => {
      const catalog = searchable(await proxiedCatalog(ctx.db, session, deps, ctx.logger ?? silentLogger, ctx.now));
      const found = rankTools(catalog.index, query, limit ?? DEFAULT_LIMIT).map((definition) => ({
        ...definition,
        estimatedTokens: catalog.tokens.get(definition) ?? estimatedTokens(definition),
      }));
      const total = catalog.index.tools.length;
      const structured = { tools: found, total, catalogTokens: catalog.catalogTokens };
      if (found.length === 0)
        return textResult(
          total
            ? `No tool matches "${query}" among ${total}; try other words, or an empty query for all.`
            : "No remote MCP server tools are active here.",
          structured,
        );
      return textResult(JSON.stringify(structured), structured);
    },
  };
  const callTool: LoadoutTool<z.infer<typeof CallToolInput>> = {
    name: "call_tool",
    title: CALL_TOOL_ANNOTATIONS.title,
    description:
      "Call a tool of your remote MCP servers by the name find_tools gave, with its arguments. Its answer is the tool's own.",
    input: CallToolInput,
    annotations: CALL_TOOL_ANNOTATIONS,
    run: async (run, { name, arguments: args }) => {
      const found = await findProxiedTool(run.ctx.db, deps, run.session, name);
      if (!found) return failure(`No tool "${name}" is active here: find_tools lists those that are.`);
      const tool = upstreamTool(presentFound(found, run.session, false), deps, { relayErrors: false });
      const input = parsedInput(tool, args);
      if (!input) return failure(`The arguments do not fit ${name}'s inputSchema (see find_tools).`);
      return tool.run(run, input.value);
    },
  };
  return [findTools, callTool] as LoadoutTool[];
}

/**
 * Loadout's own tools a session offers, as the pipeline composes them for a URL that is not a
 * single server's: the built-ins for its mode and search and fetch, and in lazy mode find_tools and
 * call_tool (which then stand for the upstream catalog).
 */
export function sessionBuiltIns(
  session: Pick<McpSession, "mode">,
  { searchFetch, lazy }: { searchFetch: boolean; lazy: boolean },
  deps: ServerDeps,
): LoadoutTool[] {
  return [...builtInTools(session, searchFetch), ...(lazy ? lazyTools(deps) : [])];
}

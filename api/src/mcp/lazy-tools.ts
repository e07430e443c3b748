import type { z } from "zod";
import { estimatedTokens, rankTools } from "../domain/mcp/tool-search";
import { silentLogger } from "../logger";
import { findProxiedTool, presentFound, proxiedCatalog } from "../services/mcp/proxied";
import type { ServerDeps } from "../services/servers/upstreams";
import { type LoadoutTool, parsedInput, upstreamTool } from "./registry";
import { failure, textResult } from "./results";
import { CALL_TOOL_ANNOTATIONS, CallToolInput, FIND_TOOLS_ANNOTATIONS, FindToolsInput } from "./tools";

/** What find_tools answers when no limit is given. */
const DEFAULT_LIMIT = 10;

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
      const catalog = await proxiedCatalog(ctx.db, session, deps, ctx.logger ?? silentLogger, ctx.now);
      const definitions = catalog.map((t) => t.definition);
      const found = rankTools(definitions, query, limit ?? DEFAULT_LIMIT).map((definition) => ({
        ...definition,
        estimatedTokens: estimatedTokens(definition),
      }));
      const structured = {
        tools: found,
        total: definitions.length,
        catalogTokens: estimatedTokens(definitions),
      };
      if (found.length === 0)
        return textResult(
          definitions.length
            ? `No tool matches "${query}" among ${definitions.length}; try other words, or an empty query for all.`
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

import type { CallToolResult, DirectTool } from "@loadout/workers";
import type { ToolView } from "../domain/apps/ui";
import type { ActionContext } from "../services/context";
import type { McpSession } from "../services/mcp/catalog";
import { callPrepared, type ProxiedCallOptions, type ProxiedTool } from "../services/mcp/proxied";
import type { ServerDeps } from "../services/servers/upstreams";
import type { ToolResult } from "./results";

/** A tool's input in the Standard Schema shape the SDK registers (zod's, or an upstream's JSON Schema). */
export interface ToolInputSchema<I> {
  "~standard": {
    version: 1;
    vendor: string;
    validate(value: unknown): { value: I; issues?: undefined } | { issues: readonly unknown[] } | Promise<unknown>;
    jsonSchema: {
      input(options: { target: string }): Record<string, unknown>;
      output(options: { target: string }): Record<string, unknown>;
    };
  };
}

/** What a tool's run gets besides its input. */
export interface ToolRun {
  ctx: ActionContext;
  session: McpSession;
  /** This server's origin, for console links in results. */
  origin: string;
  /**
   * The caller only reads the result (the pipeline's own answer): a result may then be an object an
   * earlier call got (see callSkillsTool). The SDK's path gets a fresh one, which it may change.
   */
  shared: boolean;
  /** For an upstream tool, what the call carries of the client's request (cancellation, progress, input rounds). */
  upstream: Omit<ProxiedCallOptions, "now">;
}

/**
 * One tool, as every path serves it: the SDK's per-request server registers it (server.ts,
 * relay-server.ts), and the pipeline runs it itself for a plain call (pipeline.ts). Loadout's own
 * tools are in builtin-tools.ts; an upstream's are made by `upstreamTool`.
 */
export interface LoadoutTool<I = Record<string, unknown> | undefined> {
  name: string;
  title?: string;
  description?: string;
  annotations?: Record<string, unknown>;
  input: ToolInputSchema<I>;
  /** The MCP Apps view its results render in, listed (as `_meta.ui`) to clients that negotiated Apps. */
  view?: ToolView;
  /** The upstream tool this one calls, with the checks of dispatch; absent for Loadout's own. */
  proxied?: ProxiedTool;
  run(run: ToolRun, input: I): Promise<ToolResult | CallToolResult>;
}

/**
 * An upstream tool's input schema as the upstream gave it: the JSON Schema is listed as is, and
 * arguments pass through unvalidated (the upstream validates its own input; compiling every
 * upstream schema per request would cost more than the call).
 */
function passThrough(json: Record<string, unknown>): ToolInputSchema<Record<string, unknown> | undefined> {
  return {
    "~standard": {
      version: 1,
      vendor: "loadout-upstream",
      validate: (value: unknown) => ({ value: value as Record<string, unknown> | undefined }),
      jsonSchema: { input: () => json, output: () => json },
    },
  };
}

/**
 * An upstream tool as the registry serves it: called with every check of dispatch made again
 * (callPrepared), through the pool's prepared call where the session memo holds one.
 */
export function upstreamTool(
  tool: ProxiedTool,
  deps: ServerDeps,
  options: { relayErrors: boolean; direct?: DirectTool | null },
): LoadoutTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    annotations: tool.annotations,
    ...(tool.view ? { view: tool.view } : {}),
    input: passThrough(tool.tool.inputSchema),
    proxied: tool,
    run: ({ ctx, session, origin, upstream }, args) =>
      callPrepared(ctx.db, session, deps, tool, options.direct ?? null, tool.name, args, {
        ...upstream,
        origin,
        now: ctx.now,
        relayErrors: options.relayErrors,
      }),
  };
}

/**
 * A call's input as its tool's schema reads it, or null when the schema refuses it (the SDK's path
 * then writes the error, with the SDK's wording) or validates asynchronously.
 */
export function parsedInput<I>(tool: LoadoutTool<I>, args: Record<string, unknown> | undefined): { value: I } | null {
  const checked = tool.input["~standard"].validate(tool.proxied ? args : (args ?? {}));
  if (checked instanceof Promise || !checked || typeof checked !== "object") return null;
  if ("issues" in checked && checked.issues) return null;
  return { value: (checked as { value: I }).value };
}

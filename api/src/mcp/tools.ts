import { z } from "zod";
import { FileText, Line, Text } from "../schemas/common";

/**
 * A tool input schema built once per process, whose JSON Schema is converted once per target.
 * The SDK builds a server per request and converts each tool's schema on every tools/call
 * (for the Mcp-Param header check); memoising it here takes that off every call.
 */
function memoized<T extends z.ZodObject>(schema: T): T {
  const standard = schema["~standard"];
  const cache = new Map<string, Record<string, unknown>>();
  const convert = (io: "input" | "output") => (options: { target: string }) => {
    const key = `${io}:${options.target}`;
    let json = cache.get(key);
    if (!json) {
      json = standard.jsonSchema[io](options as Parameters<typeof standard.jsonSchema.input>[0]);
      cache.set(key, json);
    }
    return json;
  };
  const wrapped = Object.create(schema) as T;
  Object.defineProperty(wrapped, "~standard", {
    value: { ...standard, jsonSchema: { input: convert("input"), output: convert("output") } },
  });
  return wrapped;
}

/** One schema per operation: the MCP tools' inputs (and so their JSON Schemas in tools/list). */
const SkillsToolInputShape = {
  action: z.enum(["list", "get"]).describe('"list" every active skill and persona, or "get" one'),
  name: Line().max(200).optional().describe("For get: the item's name, or \"<team>/<name>\" for a team's item"),
  path: Line()
    .max(1024)
    .optional()
    .describe("For get: a file of the skill other than its SKILL.md, such as references/checklist.md"),
  start: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("For get: the character to start from (the previous answer's next_start)"),
};

const SkillEditToolInputShape = {
  action: z.enum(["create", "edit"]).describe('"create" a new item, or "edit" one'),
  name: Line()
    .max(200)
    .describe("The item's name (lowercase letters, digits, hyphens), or \"<team>/<name>\" for a team's item"),
  kind: z.enum(["skill", "persona"]).optional().describe("For create: a skill (default) or a persona"),
  description: Text().optional().describe("What it does and when to use it (1–1024 characters); required to create"),
  instructions: Text().optional().describe("The Markdown body; required to create"),
  files: z
    .record(Line(), FileText().nullable())
    .optional()
    .describe("Other files by relative path, as text; a path mapped to null is removed"),
  state: z.enum(["active", "disabled"]).optional().describe("For edit: switch the item on or off"),
};

/** How many characters `skills get` returns at a time. */
export const GET_CHUNK = 20_000;

export const SKILLS_TOOL_ANNOTATIONS = {
  title: "Skills and personas",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const SKILL_EDIT_TOOL_ANNOTATIONS = {
  title: "Create or edit a skill or persona",
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
} as const;

/** ChatGPT's connector shapes (outside developer mode it only calls tools named search and fetch). */
const SearchToolInputShape = {
  query: Line().max(500).describe("What to look for in your skills and personas"),
};
const FetchToolInputShape = {
  id: Line().max(200).describe("An id from search results"),
};
export const SEARCH_TOOL_ANNOTATIONS = {
  title: "Search skills",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
export const FETCH_TOOL_ANNOTATIONS = {
  title: "Fetch a skill",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;

export const SkillsToolInput = memoized(z.object(SkillsToolInputShape));

export const SkillEditToolInput = memoized(z.object(SkillEditToolInputShape));

export const SearchToolInput = memoized(z.object(SearchToolInputShape));

export const FetchToolInput = memoized(z.object(FetchToolInputShape));

/** Lazy tools (see lazy-tools.ts): finding the session's upstream tools, and calling one by name. */
const FindToolsInputShape = {
  query: Line()
    .max(500)
    .describe("Words of what the tool should do (matched against names, titles and descriptions); empty lists all"),
  limit: z.number().int().min(1).max(50).optional().describe("At most this many tools (default 10)"),
};
const CallToolInputShape = {
  name: Line().max(200).describe("The tool's name as find_tools gave it"),
  arguments: z.record(z.string(), z.unknown()).optional().describe("The tool's arguments, as its inputSchema says"),
};
export const FIND_TOOLS_ANNOTATIONS = {
  title: "Find tools",
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
} as const;
/** What a called tool may do is its own annotations' to say; call_tool itself promises nothing. */
export const CALL_TOOL_ANNOTATIONS = {
  title: "Call a tool",
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
} as const;
export const FindToolsInput = memoized(z.object(FindToolsInputShape));
export const CallToolInput = memoized(z.object(CallToolInputShape));

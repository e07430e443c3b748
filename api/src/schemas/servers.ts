import { z } from "@hono/zod-openapi";
import { Line, NullableTimestamp, Text, Timestamp, WorkspaceParam } from "./common";
import { ScopeSchema } from "./skills";

export const ImportServersInput = z
  .strictObject({
    // An empty paste is the import's own to explain ("The paste is empty. Paste the …").
    text: Text({ error: "text is required: paste an mcpServers block" }).max(256 * 1024),
  })
  .openapi("ImportServersInput");

export const ServerSchema = z
  .object({
    id: z.string(),
    slug: z.string(),
    label: z.string(),
    description: z.string(),
    url: z.string().openapi({ description: "The URL, with secret query values and path segments masked." }),
    urlMasked: z.boolean().openapi({
      description:
        "The URL holds a secret, stored sealed: send the shown URL back unchanged to keep it, or the whole new URL.",
    }),
    transport: z.enum(["streamable-http", "sse"]),
    headers: z
      .record(z.string(), z.string())
      .openapi({ description: 'Header names, each with "(set)": no character of a value is ever returned.' }),
    placeholders: z.array(z.object({ header: z.string(), placeholder: z.string() })).openapi({
      description:
        "Headers whose value is still a placeholder from the paste (such as <YOUR_API_KEY>): enter the real value.",
    }),
    auth: z.enum(["none", "headers", "oauth"]).openapi({
      description: "How Loadout signs in to it: nothing, static headers, or OAuth (Test finds out from its 401).",
    }),
    credentials: z.enum(["per-user", "shared"]).nullable().openapi({
      description: "For OAuth: each member connects their own account, or one connection serves the team.",
    }),
    enabled: z.boolean(),
    scope: ScopeSchema,
    state: z.enum(["off", "projects", "global"]),
    callTimeoutMs: z.number().int(),
    status: z.enum(["unknown", "ok", "failed"]),
    lastError: z.string().nullable(),
    checkedAt: NullableTimestamp,
    toolsFetchedAt: NullableTimestamp.openapi({
      description: "When the tool list was last fetched; null before first use.",
    }),
    toolsTruncated: z
      .boolean()
      .openapi({ description: "The server offers more than 64 tools; the rest are not served." }),
    tools: z
      .object({ total: z.number().int(), pending: z.number().int() })
      .openapi({ description: "Tools cached, and how many wait for review (new or changed)." }),
    revision: z.number().int(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .openapi("Server");
export type ServerView = z.infer<typeof ServerSchema>;

export const ImportServersResult = z
  .object({
    imported: z.array(ServerSchema),
    skipped: z.array(z.object({ name: z.string(), reason: z.string() })),
  })
  .openapi("ImportServersResult");

export const UpdateServerInput = z
  .strictObject({
    revision: z.number({ error: "revision is required: send the revision you are editing" }).int().min(1),
    label: Line().trim().min(1).max(100).optional(),
    description: Text().max(1024).optional(),
    url: Line().max(2048).optional(),
    transport: z.enum(["streamable-http", "sse"]).optional(),
    headers: z
      .record(Line().min(1).max(200), Line().max(8192).nullable())
      .optional()
      .openapi({ description: "Headers to set; a name mapped to null is removed. Values are stored sealed." }),
    enabled: z.boolean().optional(),
    scope: ScopeSchema.optional(),
    callTimeoutMs: z.number().int().min(1000).max(600_000).optional(),
  })
  .openapi("UpdateServerInput");
export type UpdateServerInput = z.infer<typeof UpdateServerInput>;

export const ServerParams = WorkspaceParam.extend({
  slug: Line()
    .min(1)
    .max(64)
    .openapi({ param: { name: "slug", in: "path" }, example: "github" }),
});

const JsonObject = z.record(z.string(), z.unknown());

export const ServerToolSchema = z
  .object({
    name: z.string().openapi({ description: "The upstream's name for the tool." }),
    exposedName: z
      .string()
      .openapi({ description: "The name clients see at /mcp: `<slug>_<tool>`, at most 48 characters." }),
    title: z.string().nullable(),
    description: z.string(),
    inputSchema: JsonObject,
    annotations: JsonObject,
    enabled: z.boolean(),
    planSafeActions: z
      .array(z.string())
      .openapi({ description: 'Actions allowed in plan and goal modes: values of the tool\'s action enum, or ["*"].' }),
    actions: z
      .array(z.string())
      .nullable()
      .openapi({ description: "The values of the tool's `action` argument; null when it has none." }),
    pin: z.enum(["approved", "new", "changed"]).openapi({
      description: "approved: served. new or changed: withheld from clients until approved.",
    }),
    approved: z
      .object({ title: z.string().nullable(), description: z.string(), inputSchema: JsonObject })
      .nullable()
      .openapi({ description: "The definition as last approved, to compare with the current one." }),
  })
  .openapi("ServerTool");
export type ServerToolView = z.infer<typeof ServerToolSchema>;

export const ServerToolsResult = z
  .object({
    tools: z.array(ServerToolSchema),
    fetchedAt: NullableTimestamp,
    truncated: z.boolean().openapi({ description: "The server offers more than 64 tools; the rest are not served." }),
    refused: z
      .array(z.object({ name: z.string(), reason: z.string() }))
      .openapi({ description: "Tools that cannot be served, and why." }),
  })
  .openapi("ServerTools");
export type ServerToolsView = z.infer<typeof ServerToolsResult>;

export const UpdateServerToolInput = z
  .strictObject({
    enabled: z.boolean().optional(),
    planSafeActions: z.array(Line().min(1).max(200)).max(64).optional().openapi({
      description: 'Exact values of the tool\'s action enum, or ["*"] for a tool without one; [] for none.',
    }),
  })
  .openapi("UpdateServerToolInput");
export type UpdateServerToolInput = z.infer<typeof UpdateServerToolInput>;

export const ApproveServerToolsInput = z
  .strictObject({
    tools: z
      .array(Line().min(1).max(200))
      .max(64)
      .optional()
      .openapi({ description: "The tools to approve as they are now; absent approves every new or changed tool." }),
  })
  .openapi("ApproveServerToolsInput");

export const ServerToolParams = ServerParams.extend({
  tool: Line()
    .min(1)
    .max(200)
    .openapi({ param: { name: "tool", in: "path" }, example: "search_issues" }),
});

const ItemKind = z.enum(["resource", "template", "prompt", "skill"]).openapi({
  description:
    "resource (keyed by URI), template (by URI template), prompt (by name) or skill (Skills extension, by its SKILL.md URI).",
});

const ItemRef = z.strictObject({
  kind: ItemKind,
  key: Line().min(1).max(2048).openapi({
    description: "The upstream's URI, URI template, prompt name or skill's SKILL.md URI.",
    example: "file:///README.md",
  }),
});

export const ServerItemSchema = z
  .object({
    kind: ItemKind,
    key: z.string().openapi({ description: "The upstream's URI, URI template, prompt name or skill's SKILL.md URI." }),
    exposedKey: z.string().openapi({
      description:
        "What clients see at /mcp: a prompt's `<slug>_<name>`, a URI (a skill's too) under the server's prefix.",
    }),
    name: z.string(),
    title: z.string().nullable(),
    description: z.string(),
    mimeType: z.string().nullable(),
    definition: JsonObject.openapi({ description: "The definition as the upstream gives it now." }),
    approved: JsonObject.nullable().openapi({ description: "The definition as last approved." }),
    pin: z.enum(["approved", "new", "changed"]).openapi({
      description: "approved: served. new or changed: withheld from clients until approved.",
    }),
    enabled: z.boolean(),
    planSafe: z.boolean().openapi({ description: "Offered in plan and goal modes too." }),
    problem: z.string().nullable().openapi({
      description:
        "Why it is withheld although approved: what Loadout found when it was last used (a skill file whose bytes did not match its manifest). Cleared by Test.",
    }),
  })
  .openapi("ServerItem");
export type ServerItemView = z.infer<typeof ServerItemSchema>;

export const ServerItemsResult = z
  .object({ items: z.array(ServerItemSchema) })
  .openapi("ServerItems", { description: "A server's resources, resource templates, prompts and skills." });
export type ServerItemsView = z.infer<typeof ServerItemsResult>;

export const UpdateServerItemInput = ItemRef.extend({
  enabled: z.boolean().optional(),
  planSafe: z.boolean().optional().openapi({ description: "Offer it in plan and goal modes too." }),
}).openapi("UpdateServerItemInput");
export type UpdateServerItemInput = z.infer<typeof UpdateServerItemInput>;

export const ApproveServerItemsInput = z
  .strictObject({
    items: z.array(ItemRef).max(768).optional().openapi({
      description: "The items to approve as they are now; absent approves every new or changed one.",
    }),
  })
  .openapi("ApproveServerItemsInput");

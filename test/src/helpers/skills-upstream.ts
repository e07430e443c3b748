/**
 * A real upstream MCP server that serves the Skills extension (SEP-2640) with the SDK's helpers:
 * `SkillsExtension` over a `SkillSource` of skills held in memory, each entry built by the SDK's
 * `skillEntry` (digests and sizes of the exact bytes), on one Streamable HTTP endpoint for both
 * eras. A test can change a skill (its entry changes with it) or make the server serve other bytes
 * than its entry's digests say, and counts what the upstream was asked.
 */
import { createMcpHandler, type McpHttpHandler, McpServer } from "@modelcontextprotocol/server";
import { type Skill, type SkillSource, SkillsExtension, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { z } from "zod";
import { serveMcpHandler } from "./upstreams";

export interface SkillsUpstream {
  url: string;
  /** Publishes (or replaces) a skill: its files by path under its folder, `SKILL.md` among them. */
  setSkill(name: string, files: Record<string, string>): Promise<void>;
  /** Serves `content` for a file (by its upstream URI) while its entry keeps the published digest. */
  tamper(uri: string, content: string): void;
  /** Requests received by method (`skills/list`, `resources/read`…). */
  received(method: string): number;
  stop(): Promise<void>;
}

/** A SKILL.md with this name and description. */
export const skillDoc = (name: string, description: string, body = `# ${name}\n\nFollow these steps.\n`) =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

export async function startSkillsUpstream(
  initial: Record<string, Record<string, string>> = {},
): Promise<SkillsUpstream> {
  const files = new Map<string, string>();
  const entries = new Map<string, Skill>();
  const tampered = new Map<string, string>();
  const methods = new Map<string, number>();

  async function setSkill(name: string, skillFiles: Record<string, string>) {
    for (const uri of [...files.keys()]) if (uri.startsWith(`skill://${name}/`)) files.delete(uri);
    for (const [path, content] of Object.entries(skillFiles)) files.set(`skill://${name}/${path}`, content);
    const entry = await skillEntry(name, skillFiles);
    entries.set(entry.uri, entry);
  }
  for (const [name, skillFiles] of Object.entries(initial)) await setSkill(name, skillFiles);

  const source: SkillSource = {
    async list() {
      return { skills: [...entries.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1)) };
    },
    async get(uri) {
      return entries.get(uri);
    },
    async read(uri) {
      const text = tampered.get(uri) ?? files.get(uri);
      return text === undefined ? undefined : { text, mimeType: uri.endsWith(".md") ? "text/markdown" : "text/plain" };
    },
  };
  const extension = new SkillsExtension({ source, onWarning: () => {} });
  const handler = createMcpHandler(
    () => {
      const server = new McpServer(
        { name: "skills-upstream", version: "1.0.0" },
        { capabilities: { tools: {}, resources: {} } },
      );
      server.registerTool(
        "echo",
        {
          description: "Echoes its text.",
          inputSchema: z.object({ text: z.string() }),
          annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false },
        },
        async ({ text }) => ({ content: [{ type: "text", text }] }),
      );
      extension.attach(server);
      return server;
    },
    { legacy: "stateless" },
  );
  // Counted on the way in; everything else is the SDK handler's (serveMcpHandler uses fetch and close).
  const counted = {
    ...handler,
    fetch: async (request: Request, extra?: Parameters<McpHttpHandler["fetch"]>[1]) => {
      if (request.method === "POST") {
        const body = (await request
          .clone()
          .json()
          .catch(() => null)) as { method?: unknown } | null;
        if (typeof body?.method === "string") methods.set(body.method, (methods.get(body.method) ?? 0) + 1);
      }
      return handler.fetch(request, extra);
    },
    close: () => handler.close(),
  } as McpHttpHandler;
  const served = await serveMcpHandler(counted);
  return {
    url: served.url,
    setSkill,
    tamper: (uri, content) => void tampered.set(uri, content),
    received: (method) => methods.get(method) ?? 0,
    stop: served.stop,
  };
}

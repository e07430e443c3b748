import { CHARS_PER_TOKEN, type InstructionItem } from "../domain/instructions";
import type { ActionContext } from "../services/context";
import type { McpSession } from "../services/mcp/catalog";
import { findUpstreamSkill, readUpstreamSkillPath, sessionUpstreamSkills } from "../services/mcp/upstream-skills";
import type { ServerDeps } from "../services/servers/upstreams";
import { errorResult, failure, type ToolResult } from "./results";
import { fileChunkResult } from "./skill-chunks";

/**
 * The `skills` tool's part for upstream servers' skills (see services/mcp/upstream-skills.ts):
 * their entries in `list`, and `get` by the name `server:<prefix>/<skill path>`, which no personal
 * or team address can be (skill and team names have no `:`).
 */

/** The session's upstream skills as `list` shows them, after the user's own. */
export async function upstreamSkillsListed(
  ctx: ActionContext,
  session: McpSession,
): Promise<{ lines: string[]; items: Record<string, unknown>[] }> {
  const skills = session.servers ? await sessionUpstreamSkills(ctx.db, session.servers, session) : [];
  return {
    lines: skills.map((s) => `- ${s.address} [${s.origin}]: ${s.definition.frontmatter.description}`),
    items: skills.map((s) => ({
      name: s.address,
      kind: "skill",
      origin: s.origin,
      description: s.definition.frontmatter.description,
      // What reading all of it would cost, from its manifest's sizes (as the user's own items).
      tokens: Math.ceil(s.files.reduce((n, f) => n + f.size, 0) / CHARS_PER_TOKEN),
    })),
  };
}

/** The session's upstream skills for the handshake's instructions block, named as `get` takes them. */
export async function upstreamInstructionItems(
  ctx: Pick<ActionContext, "db">,
  session: McpSession,
  deps: Pick<ServerDeps, "hot">,
): Promise<InstructionItem[]> {
  return (await sessionUpstreamSkills(ctx.db, deps, session)).map((s) => ({
    address: s.address,
    kind: "skill",
    description: s.definition.frontmatter.description,
  }));
}

/**
 * `get` of an upstream skill: its SKILL.md, or another file of its approved manifest with
 * `path`, read from the server now and checked against the manifest, 20,000 characters at a time.
 * A file whose bytes do not match is withheld with the reason.
 */
export async function getUpstreamSkill(
  ctx: ActionContext,
  session: McpSession,
  input: { name: string; path?: string | undefined; start?: number | undefined },
  signal?: AbortSignal,
): Promise<ToolResult> {
  try {
    const deps = session.servers;
    const skill = deps ? await findUpstreamSkill(ctx.db, deps, session, { address: input.name }) : null;
    if (!deps || !skill)
      return failure(
        `There is no skill "${input.name}" of a remote server in this session (it may be switched off, scoped to another project, changed and waiting for review, or shadowed by a skill of your own with its name). skills(action="list") shows what is active.`,
      );
    const path = input.path ?? "SKILL.md";
    const read = await readUpstreamSkillPath(ctx.db, deps, session, skill, path, {
      now: ctx.now,
      ...(signal ? { signal } : {}),
    });
    if (!read)
      return failure(`"${input.name}" has no file "${path}". Its files: ${skill.files.map((f) => f.path).join(", ")}.`);
    if (!read.ok) return failure(read.reason);
    return fileChunkResult({
      name: input.name,
      askedPath: input.path,
      path,
      kind: "skill",
      docName: "SKILL.md",
      start: input.start,
      bytes: read.bytes,
      digest: read.file.digest,
      files: skill.files,
      extra: { origin: skill.origin },
    }).result;
  } catch (error) {
    return errorResult(error, ctx);
  }
}

import type { UpstreamTarget } from "@loadout/workers";
import { describe, expect, it } from "vitest";
import { listUpstreamItems } from "./items";

/** An upstream that pages its prompts two at a time (what a listing sees of it: request and capabilities). */
function pagedUpstream(prompts: number) {
  const asked: string[] = [];
  return {
    asked,
    capabilities: async () => ({ prompts: {} }),
    request: async (_target: UpstreamTarget, method: string, params: Record<string, unknown>) => {
      asked.push(method);
      const from = Number(params.cursor ?? 0);
      const page = Array.from({ length: Math.min(2, prompts - from) }, (_, i) => ({ name: `p${from + i}` }));
      return { prompts: page, ...(from + 2 < prompts ? { nextCursor: String(from + 2) } : {}) };
    },
  };
}

const target = {} as UpstreamTarget;

describe("listUpstreamItems", () => {
  it("follows every page of the kinds the upstream declares, and asks for no other kind", async () => {
    const upstream = pagedUpstream(5);
    const listing = await listUpstreamItems(upstream, target);
    expect(listing.prompt?.map((p) => p.name)).toEqual(["p0", "p1", "p2", "p3", "p4"]);
    expect(listing.resource).toBeUndefined();
    expect(upstream.asked).toEqual(["prompts/list", "prompts/list", "prompts/list"]);
  });

  it("leaves out a kind it could not list whole within the time budget, so its stored items stay", async () => {
    const listing = await listUpstreamItems(pagedUpstream(5), target, -1);
    expect(listing.prompt).toBeUndefined();
  });
});

describe("listUpstreamItems: skills", () => {
  const extension = { resources: {}, extensions: { "io.modelcontextprotocol/skills": {} } };
  const digest = `sha256:${"0".repeat(64)}`;
  const skill = (name: string) => ({
    uri: `skill://${name}/SKILL.md`,
    frontmatter: { name, description: `The ${name} skill.` },
    resources: [{ uri: `skill://${name}/SKILL.md`, digest, size: 1 }],
  });
  function skillsUpstream(capabilities: Record<string, unknown>, skills: unknown[]) {
    const asked: string[] = [];
    return {
      asked,
      capabilities: async () => capabilities,
      request: async (_target: UpstreamTarget, method: string) => {
        asked.push(method);
        if (method === "skills/list") return { skills };
        if (method === "resources/templates/list")
          return { resourceTemplates: [{ uriTemplate: "skill://{+path}", name: "skills" }] };
        return {
          resources: [
            { uri: "skill://a/SKILL.md", name: "a" },
            { uri: "memo://notes", name: "notes" },
          ],
        };
      },
    };
  }

  it("lists skills only from an upstream that declares the extension", async () => {
    const upstream = skillsUpstream({ resources: {} }, [skill("a")]);
    expect((await listUpstreamItems(upstream, target)).skill).toBeUndefined();
    expect(upstream.asked).not.toContain("skills/list");
  });

  it("keeps valid entries, tells the invalid ones with their reason, and leaves skill:// resources to the skills", async () => {
    const skipped: string[] = [];
    const upstream = skillsUpstream(extension, [skill("a"), { ...skill("b"), resources: "dynamic" }]);
    const listing = await listUpstreamItems(upstream, target, undefined, (kind, key, reason) =>
      skipped.push(`${kind} ${key}: ${reason}`),
    );
    expect(listing.skill?.map((s) => s.uri)).toEqual(["skill://a/SKILL.md"]);
    expect(skipped).toEqual([expect.stringMatching(/^skill skill:\/\/b\/SKILL\.md: generated/)]);
    expect(listing.resource?.map((r) => r.uri)).toEqual(["memo://notes"]);
    expect(listing.template).toEqual([]);
  });

  it("serves at most 256 skills of one server and tells the rest as skipped", async () => {
    const skipped: string[] = [];
    const many = Array.from({ length: 300 }, (_, i) => skill(`s${i}`));
    const listing = await listUpstreamItems(skillsUpstream(extension, many), target, undefined, (_k, key) =>
      skipped.push(key),
    );
    expect(listing.skill).toHaveLength(256);
    expect(skipped).toHaveLength(44);
  });
});

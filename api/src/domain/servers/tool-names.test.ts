import { describe, expect, it } from "vitest";
import { BUILT_IN_TOOL_NAMES, MAX_TOOL_NAME_LENGTH, proxiedToolName, serverSlugProblem } from "./tool-names";

const VALID_NAME = /^[a-zA-Z0-9_-]+$/;
const HASHED = /^[a-zA-Z0-9_-]{41}_[0-9a-z]{6}$/;

describe("proxiedToolName", () => {
  // [case, slug, tool, expected name, or a pattern for shortened names]
  it.each<[string, string, string, string | RegExp]>([
    ["short name", "github", "create_issue", "github_create_issue"],
    ["hyphenated slug", "my-server", "list", "my-server_list"],
    ["case and hyphens kept", "x", "Get-User_v2", "x_Get-User_v2"],
    ["dots", "github", "repos.list", "github_repos_list"],
    ["slashes", "fs", "files/read", "fs_files_read"],
    ["spaces", "notion", "search pages", "notion_search_pages"],
    ["accented letters", "jira", "créer", "jira_cr_er"],
    ["an emoji is one character", "x", "ship🚀", "x_ship_"],
    ["CJK", "x", "検索", "x___"],
    ["empty tool", "x", "", "x_"],
    ["exactly 48", "srv", "t".repeat(44), `srv_${"t".repeat(44)}`],
    ["exactly 48 after replacement", "srv", "a.".repeat(22), `srv_${"a_".repeat(22)}`],
    ["49 is shortened", "srv", "t".repeat(45), new RegExp(`^srv_${"t".repeat(37)}_[0-9a-z]{6}$`)],
    ["a pinned shortened name", "github", "a".repeat(42), `github_${"a".repeat(34)}_ef0i2h`],
    [
      "a realistic long name",
      "github",
      "list_repository_collaborators_with_permissions",
      "github_list_repository_collaborators_with_3vte5i",
    ],
    ["long unicode", "wiki", "página_de_búsqueda_con_filtros_avanzados_y_más", HASHED],
    ["very long", "s".repeat(32), "x".repeat(500), HASHED],
  ])("%s", (_case, slug, tool, expected) => {
    const name = proxiedToolName(slug, tool);
    if (typeof expected === "string") expect(name).toBe(expected);
    else expect(name).toMatch(expected);
    expect(name).toMatch(VALID_NAME);
    expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
  });

  it("gives different names to long names that differ only at the end", () => {
    const a = proxiedToolName("github", `${"list_".repeat(10)}open`);
    const b = proxiedToolName("github", `${"list_".repeat(10)}shut`);
    expect(a.slice(0, 41)).toBe(b.slice(0, 41));
    expect(a).not.toBe(b);
  });

  it("gives different names to long names that differ only in a replaced character", () => {
    const tail = "x".repeat(50);
    expect(proxiedToolName("s", `a.${tail}`)).not.toBe(proxiedToolName("s", `a ${tail}`));
  });

  it("gives 2,000 long names of one server 2,000 names", () => {
    const names = new Set<string>();
    for (let i = 0; i < 2000; i++) names.add(proxiedToolName("server", `${"long_tool_name_".repeat(4)}${i}`));
    expect(names.size).toBe(2000);
  });

  it("is deterministic and does not depend on other servers", () => {
    const long = "query_the_warehouse_for_everything_it_knows";
    const first = proxiedToolName("data", long);
    for (let i = 0; i < 50; i++) proxiedToolName(`other-${i}`, long);
    expect(proxiedToolName("data", long)).toBe(first);
    expect(proxiedToolName("data2", long)).not.toBe(first);
  });
});

describe("proxiedToolName for a team's server", () => {
  it.each<[string, string, string, string, string | RegExp]>([
    ["short name", "acme", "github", "create_issue", "acme_github_create_issue"],
    ["hyphenated", "acme-labs", "my-server", "list", "acme-labs_my-server_list"],
    ["dots replaced", "acme", "gh", "repos.list", "acme_gh_repos_list"],
    ["exactly 48", "acme", "srv", "t".repeat(39), `acme_srv_${"t".repeat(39)}`],
    ["49 is shortened", "acme", "srv", "t".repeat(40), new RegExp(`^acme_srv_${"t".repeat(32)}_[0-9a-z]{6}$`)],
    ["longest slugs", "t".repeat(39), "s".repeat(32), "x".repeat(64), HASHED],
  ])("%s", (_case, team, slug, tool, expected) => {
    const name = proxiedToolName(slug, tool, team);
    if (typeof expected === "string") expect(name).toBe(expected);
    else expect(name).toMatch(expected);
    expect(name).toMatch(VALID_NAME);
    expect(name.length).toBeLessThanOrEqual(MAX_TOOL_NAME_LENGTH);
  });

  it("never gives a team's tool the name of the same personal server's tool", () => {
    expect(proxiedToolName("github", "list", "acme")).not.toBe(proxiedToolName("github", "list"));
    expect(proxiedToolName("github", "list", null)).toBe(proxiedToolName("github", "list"));
  });

  it("gives long names of two teams' same server different names", () => {
    const tool = "list_repository_collaborators_with_permissions";
    const a = proxiedToolName("github", tool, "team-a");
    const b = proxiedToolName("github", tool, "team-b");
    expect(a).not.toBe(b);
    expect(a.length).toBe(MAX_TOOL_NAME_LENGTH);
  });

  it("never equals a built-in tool (two underscores at least, built-ins have one at most)", () => {
    for (const builtIn of BUILT_IN_TOOL_NAMES) {
      const [team = "", slug = "", tool = ""] = builtIn.split("_");
      expect(proxiedToolName(slug, tool, team)).not.toBe(builtIn);
    }
  });
});

describe("serverSlugProblem", () => {
  it.each<[string, string | null]>([
    ["github", null],
    ["a", null],
    ["1", null],
    ["my-server", null],
    ["skill-edit", null],
    ["skills2", null],
    ["a".repeat(32), null],
    ["", "use 1–32"],
    ["GitHub", "use 1–32"],
    ["-github", "use 1–32"],
    ["github-", "use 1–32"],
    ["git_hub", "use 1–32"],
    ["git.hub", "use 1–32"],
    ["a".repeat(33), "use 1–32"],
    ["skills", "built-in"],
    ["search", "built-in"],
    ["fetch", "built-in"],
    ["skill", "built-in"],
  ])("%j → %s", (slug, expected) => {
    const problem = serverSlugProblem(slug);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });

  it("leaves no accepted slug whose tools can be named like a built-in", () => {
    for (const builtIn of BUILT_IN_TOOL_NAMES) {
      for (let i = 1; i < builtIn.length; i++) {
        if (builtIn[i] !== "_") continue;
        const slug = builtIn.slice(0, i);
        expect(proxiedToolName(slug, builtIn.slice(i + 1))).toBe(builtIn);
        expect(serverSlugProblem(slug)).toContain("built-in");
      }
    }
  });
});

import { describe, expect, it } from "vitest";
import { callWorkspaceId } from "./call-workspace";

const workspaces = [
  { id: "ws_personal", kind: "personal" as const, slug: "ada" },
  { id: "ws_acme", kind: "team" as const, slug: "acme" },
];

describe("callWorkspaceId", () => {
  it.each<[string, { toolWorkspaceId: string | null; names: (string | null)[] }, string | null]>([
    ["a team's proxied tool", { toolWorkspaceId: "ws_acme", names: ["gh_list"] }, "ws_acme"],
    ["a personal proxied tool", { toolWorkspaceId: "ws_personal", names: [] }, "ws_personal"],
    ["a tool of a workspace not reached", { toolWorkspaceId: "ws_other", names: [] }, "ws_personal"],
    ["a team skill by address", { toolWorkspaceId: null, names: ["acme/review", "skills"] }, "ws_acme"],
    ["a team skill's file", { toolWorkspaceId: null, names: ["skill://acme/review/SKILL.md"] }, "ws_acme"],
    ["a personal skill", { toolWorkspaceId: null, names: ["review"] }, "ws_personal"],
    ["a personal skill's file", { toolWorkspaceId: null, names: ["skill://review/references/a.md"] }, "ws_personal"],
    ["a team the session does not reach", { toolWorkspaceId: null, names: ["other/review"] }, "ws_personal"],
    ["nothing named", { toolWorkspaceId: null, names: [null] }, "ws_personal"],
  ])("%s", (_case, call, expected) => {
    expect(callWorkspaceId(workspaces, call)).toBe(expected);
  });

  it("has no workspace for a session without a personal one and no team named", () => {
    expect(callWorkspaceId([], { toolWorkspaceId: null, names: ["x"] })).toBeNull();
  });
});

/**
 * The workspace whose activity log keeps an MCP call: the team whose tool or item it named (so a
 * team sees how its members' agents use what it shares), else the caller's personal workspace.
 * Only workspaces the session reaches are candidates; the item's name is what the agent sent
 * (`acme/review`, `skill://acme/review/SKILL.md`), never trusted beyond picking among those.
 */
export function callWorkspaceId(
  workspaces: readonly { id: string; kind: "personal" | "team"; slug: string }[],
  call: { toolWorkspaceId: string | null; names: readonly (string | null)[] },
): string | null {
  if (call.toolWorkspaceId && workspaces.some((w) => w.id === call.toolWorkspaceId)) return call.toolWorkspaceId;
  for (const name of call.names) {
    if (!name) continue;
    const address = name.startsWith("skill://") ? name.slice("skill://".length) : name;
    const slash = address.indexOf("/");
    if (slash <= 0) continue;
    const team = workspaces.find((w) => w.kind === "team" && w.slug === address.slice(0, slash));
    if (team) return team.id;
  }
  return workspaces.find((w) => w.kind === "personal")?.id ?? null;
}

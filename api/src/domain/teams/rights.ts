/**
 * Who may do what in a team. Owners do everything; admins manage members and invites but never
 * touch owners or make one; members read and write the team's skills, personas and servers.
 * A team always keeps at least one owner. Each rule answers with the reason it refuses, or null.
 */
export type Role = "owner" | "admin" | "member";

export const manages = (role: Role) => role === "owner" || role === "admin";

export function inviteProblem(actor: Role, invited: Role): string | null {
  if (!manages(actor)) return "only owners and admins can invite people";
  if (invited === "owner" && actor !== "owner") return "only an owner can invite another owner";
  return null;
}

export function roleChangeProblem(
  actor: Role,
  change: { self: boolean; from: Role; to: Role; owners: number },
): string | null {
  if (!manages(actor)) return "only owners and admins can change roles";
  if (actor !== "owner" && (change.from === "owner" || change.to === "owner"))
    return "only an owner can make someone an owner or change an owner's role";
  if (change.from === "owner" && change.to !== "owner" && change.owners <= 1)
    return "a team needs at least one owner: make someone else an owner first (or transfer ownership)";
  return null;
}

export function removalProblem(actor: Role, target: { self: boolean; role: Role; owners: number }): string | null {
  if (!target.self && !manages(actor)) return "only owners and admins can remove members";
  if (!target.self && target.role === "owner" && actor !== "owner") return "only an owner can remove another owner";
  if (target.role === "owner" && target.owners <= 1)
    return target.self
      ? "you are the team's last owner: transfer ownership first, or delete the team"
      : "a team needs at least one owner";
  return null;
}

export function transferProblem(actor: Role, target: { self: boolean }): string | null {
  if (actor !== "owner") return "only an owner can transfer ownership";
  if (target.self) return "you already own this team: name another member";
  return null;
}

export function deletionProblem(actor: Role): string | null {
  return actor === "owner" ? null : "only an owner can delete the team";
}

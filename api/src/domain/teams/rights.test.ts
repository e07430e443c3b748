import { describe, expect, it } from "vitest";
import {
  deletionProblem,
  inviteProblem,
  type Role,
  removalProblem,
  roleChangeProblem,
  transferProblem,
} from "./rights";

const ROLES: Role[] = ["owner", "admin", "member"];

describe("inviteProblem", () => {
  it.each<[Role, Role, string | null]>([
    ["owner", "owner", null],
    ["owner", "admin", null],
    ["owner", "member", null],
    ["admin", "owner", "only an owner"],
    ["admin", "admin", null],
    ["admin", "member", null],
    ["member", "member", "only owners and admins"],
    ["member", "admin", "only owners and admins"],
  ])("%s inviting a %s → %s", (actor, invited, expected) => {
    const problem = inviteProblem(actor, invited);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("roleChangeProblem", () => {
  it("lets owners make every change while another owner remains", () => {
    for (const from of ROLES)
      for (const to of ROLES) expect(roleChangeProblem("owner", { self: false, from, to, owners: 2 })).toBeNull();
  });
  it("never demotes the last owner, not even by themself", () => {
    for (const to of ["admin", "member"] as const) {
      expect(roleChangeProblem("owner", { self: true, from: "owner", to, owners: 1 })).toContain("at least one owner");
    }
    expect(roleChangeProblem("owner", { self: true, from: "owner", to: "owner", owners: 1 })).toBeNull();
  });
  it("keeps admins away from owners", () => {
    expect(roleChangeProblem("admin", { self: false, from: "owner", to: "member", owners: 3 })).toContain(
      "only an owner",
    );
    expect(roleChangeProblem("admin", { self: false, from: "member", to: "owner", owners: 1 })).toContain(
      "only an owner",
    );
    expect(roleChangeProblem("admin", { self: true, from: "admin", to: "owner", owners: 1 })).toContain(
      "only an owner",
    );
    expect(roleChangeProblem("admin", { self: false, from: "member", to: "admin", owners: 1 })).toBeNull();
    expect(roleChangeProblem("admin", { self: false, from: "admin", to: "member", owners: 1 })).toBeNull();
  });
  it("refuses members any change", () => {
    for (const to of ROLES)
      expect(roleChangeProblem("member", { self: true, from: "member", to, owners: 1 })).toContain(
        "only owners and admins",
      );
  });
});

describe("removalProblem", () => {
  it.each<[string, Role, { self: boolean; role: Role; owners: number }, string | null]>([
    ["a member leaving", "member", { self: true, role: "member", owners: 1 }, null],
    ["an admin leaving", "admin", { self: true, role: "admin", owners: 1 }, null],
    ["an owner leaving while another owner remains", "owner", { self: true, role: "owner", owners: 2 }, null],
    ["the last owner leaving", "owner", { self: true, role: "owner", owners: 1 }, "last owner"],
    ["a member removing another", "member", { self: false, role: "member", owners: 1 }, "only owners and admins"],
    ["an admin removing a member", "admin", { self: false, role: "member", owners: 1 }, null],
    ["an admin removing an admin", "admin", { self: false, role: "admin", owners: 1 }, null],
    ["an admin removing an owner", "admin", { self: false, role: "owner", owners: 2 }, "only an owner"],
    ["an owner removing an owner", "owner", { self: false, role: "owner", owners: 2 }, null],
  ])("%s", (_case, actor, target, expected) => {
    const problem = removalProblem(actor, target);
    if (expected === null) expect(problem).toBeNull();
    else expect(problem).toContain(expected);
  });
});

describe("transferProblem and deletionProblem", () => {
  it("are the owner's alone", () => {
    expect(transferProblem("owner", { self: false })).toBeNull();
    expect(transferProblem("owner", { self: true })).toContain("already own");
    expect(transferProblem("admin", { self: false })).toContain("only an owner");
    expect(transferProblem("member", { self: false })).toContain("only an owner");
    expect(deletionProblem("owner")).toBeNull();
    expect(deletionProblem("admin")).toContain("only an owner");
    expect(deletionProblem("member")).toContain("only an owner");
  });
});

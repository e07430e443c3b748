import { describe, expect, it } from "vitest";
import { databaseUnavailable, uniqueViolation } from "./db-errors";

const wrapped = (cause: unknown) => Object.assign(new Error("Failed query: select 1"), { cause });

describe("databaseUnavailable", () => {
  it.each([
    ["postgres.js closed", { code: "CONNECTION_CLOSED" }],
    ["postgres.js connect timeout", { code: "CONNECT_TIMEOUT" }],
    ["refused", { code: "ECONNREFUSED" }],
    ["admin shutdown (pg_ctl stop -m fast)", { code: "57P01" }],
    ["starting up", { code: "57P03" }],
    ["connection failure", { code: "08006" }],
    ["too many connections", { code: "53300" }],
  ])("says yes to %s, also wrapped by Drizzle", (_, error) => {
    expect(databaseUnavailable(error)).toBe(true);
    expect(databaseUnavailable(wrapped(error))).toBe(true);
  });

  it.each([
    ["a unique violation", { code: "23505" }],
    ["a syntax error", { code: "42601" }],
    ["a deadlock", { code: "40P01" }],
    ["no code", new Error("boom")],
    ["not an error", "ECONNREFUSED"],
  ])("says no to %s", (_, error) => {
    expect(databaseUnavailable(wrapped(error))).toBe(false);
  });

  it("leaves unique violations to uniqueViolation", () => {
    expect(uniqueViolation(wrapped({ code: "23505", constraint_name: "skills_workspace_name_key" }))).toBe(
      "skills_workspace_name_key",
    );
  });
});

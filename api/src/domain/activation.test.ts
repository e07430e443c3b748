import { describe, expect, it } from "vitest";
import {
  activationState,
  inactiveBecause,
  isActiveInProject,
  normalizeProjectPath,
  normalizeScope,
  parseScope,
} from "./activation";

const projects = (...paths: string[]) => ({ mode: "projects", projects: paths });

describe("normalizeProjectPath", () => {
  it.each([
    ["/work/mono", "/work/mono"],
    ["/work/mono/", "/work/mono"],
    ["  /work/mono  ", "/work/mono"],
    ["/Users/Ada/Code", "/users/ada/code"],
    ["/work//mono///pkg", "/work/mono/pkg"],
    ["/", "/"],
    ["///", "/"],
    ["C:\\Work\\Mono\\", "c:/work/mono"],
    ["c:/work/mono/", "c:/work/mono"],
    ["C:\\", "c:/"],
    ["C:/", "c:/"],
    ["C:", "c:/"],
    ["D:\\\\Work\\\\x", "d:/work/x"],
    ["\\\\Server\\Share\\Dir\\", "//server/share/dir"],
    ["file:///c:/work", "c:/work"],
    ["file:///C:/Work/Mono/", "c:/work/mono"],
    ["file:///C%3A/Work%20Tree", "c:/work tree"],
    ["file:///home/x", "/home/x"],
    ["FILE:///home/Ada/My%20Project/", "/home/ada/my project"],
    ["file://localhost/home/x", "/home/x"],
    ["file://server/share/x", "//server/share/x"],
    ["file:///home/100%", "/home/100%"],
    ["/work/mono/./pkg", "/work/mono/pkg"],
    ["/work/mono/../other", "/work/other"],
    ["/../..", "/"],
    ["c:\\work\\..\\..\\x", "c:/x"],
    ["/Users/Zoë/Code", "/users/zoë/code"],
    ["", ""],
    ["   ", ""],
  ])("%j → %j", (input, expected) => {
    expect(normalizeProjectPath(input)).toBe(expected);
  });

  it("is idempotent", () => {
    for (const input of ["C:\\Work\\Mono\\", "file:///home/x%20y/", "\\\\srv\\share", "/a/../b/./c/"]) {
      const once = normalizeProjectPath(input);
      expect(normalizeProjectPath(once)).toBe(once);
    }
  });
});

describe("inactiveBecause", () => {
  const row = (enabled: boolean, scopeMode: string, scopeProjects: string[] = []) => ({
    enabled,
    scopeMode,
    scopeProjects,
  });

  it("is null for an active row", () => {
    expect(inactiveBecause(row(true, "global"), null)).toBeNull();
    expect(inactiveBecause(row(true, "projects", ["/work/app"]), "/work/app/pkg")).toBeNull();
  });

  it("says a switched-off row is switched off, whatever its scope", () => {
    expect(inactiveBecause(row(false, "projects", ["/work/app"]), "/work/app")).toBe(
      "is switched off (Where it is active: off, on its page in the Loadout console)",
    );
  });

  it("tells a scope to other projects from a session that names no project", () => {
    expect(inactiveBecause(row(true, "projects", ["/work/app"]), "/work/other/")).toBe(
      "is active only on other projects than /work/other (Where it is active, on its page in the Loadout console)",
    );
    expect(inactiveBecause(row(true, "projects", ["/work/app"]), null)).toBe(
      "is active only on chosen projects, and this session names none (send X-Loadout-Project or ?project=)",
    );
  });
});

describe("isActiveInProject", () => {
  it.each([
    // paths compare case-insensitively and ignore a trailing separator
    ["same path", projects("/work/mono"), "/work/mono", true],
    ["case and trailing slash", projects("/Users/Ada/Code"), "/users/ada/code/", true],
    ["Windows spelling vs a subfolder", projects("C:\\Work\\Mono\\"), "c:/work/mono/pkg", true],
    ["Windows case", projects("c:/work/mono"), "C:\\WORK\\MONO", true],
    ["an MCP root URI", projects("/home/ada/code"), "file:///home/ada/code/app", true],
    ["a Windows MCP root URI", projects("C:\\Work"), "file:///c%3A/work/x", true],
    // a scoped path also matches its subdirectories, but not a sibling that shares a prefix
    ["subdirectory", projects("/work/mono"), "/work/mono/packages/api", true],
    ["sibling with a common prefix", projects("/work/mono"), "/work/monorepo", false],
    ["parent of the scope", projects("/work/mono"), "/work", false],
    ["escaping with ..", projects("/work/mono"), "/work/mono/../other", false],
    ["another project", projects("/work/mono"), "/home/ada/side", false],
    ["one of several", projects("/a", "/work/mono"), "/work/mono", true],
    ["root scope covers everything", projects("/"), "/anything/below", true],
    ["drive root scope", projects("C:\\"), "c:/work", true],
    ["drive root does not cover another drive", projects("C:\\"), "d:/work", false],
    // a projects-mode item is inactive in a session with no project
    ["no project (null)", projects("/work/mono"), null, false],
    ["no project (undefined)", projects("/work/mono"), undefined, false],
    ["no project (blank)", projects("/work/mono"), "  ", false],
    ["projects mode with no projects", projects(), "/work/mono", false],
    ["a blank scoped path matches nothing", projects(""), "/work/mono", false],
    // a missing or unrecognised scope means global
    ["global", { mode: "global", projects: [] }, "/work/mono", true],
    ["global, no project", { mode: "global", projects: ["/elsewhere"] }, null, true],
    ["missing scope", undefined, "/work/mono", true],
    ["null scope", null, null, true],
    ["unknown mode", { mode: "off", projects: ["/elsewhere"] }, "/work/mono", true],
    ["projects not a list", { mode: "projects", projects: "/elsewhere" }, "/work/mono", true],
    ["a non-string project", { mode: "projects", projects: ["/elsewhere", 3] }, "/work/mono", true],
    ["a string scope", "projects", "/work/mono", true],
  ])("%s", (_name, scope, project, expected) => {
    expect(isActiveInProject({ enabled: true, scope }, project)).toBe(expected);
  });

  it.each([
    [projects("/work/mono"), "/work/mono"],
    [{ mode: "global", projects: [] }, "/work/mono"],
    [null, null],
    [undefined, "/x"],
  ])("a disabled item is never active (%j)", (scope, project) => {
    expect(isActiveInProject({ enabled: false, scope }, project)).toBe(false);
  });

  it("treats an item without a scope field as global", () => {
    expect(isActiveInProject({ enabled: true }, "/any")).toBe(true);
    expect(isActiveInProject({ enabled: true }, null)).toBe(true);
  });
});

describe("activationState", () => {
  it.each([
    [false, projects("/a"), "off"],
    [false, { mode: "global", projects: [] }, "off"],
    [false, null, "off"],
    [true, projects("/a"), "projects"],
    [true, projects(), "projects"],
    [true, { mode: "global", projects: ["/a"] }, "global"],
    [true, null, "global"],
    [true, undefined, "global"],
    [true, { mode: "sometimes", projects: [] }, "global"],
    [true, { mode: "projects" }, "global"],
  ])("enabled=%s scope=%j → %s", (enabled, scope, state) => {
    expect(activationState(enabled, scope)).toBe(state);
  });
});

describe("parseScope", () => {
  it.each([
    [
      { mode: "global", projects: [] },
      { mode: "global", projects: [] },
    ],
    [
      { mode: "projects", projects: ["/A/"] },
      { mode: "projects", projects: ["/A/"] },
    ],
    [
      { mode: "projects", projects: ["/a"], extra: 1 },
      { mode: "projects", projects: ["/a"] },
    ],
    [{ mode: "projects" }, null],
    [{ mode: "projects", projects: [1] }, null],
    [{ mode: "off", projects: [] }, null],
    [{ projects: [] }, null],
    [[], null],
    ["global", null],
    [null, null],
    [undefined, null],
  ])("%j → %j", (input, expected) => {
    expect(parseScope(input)).toEqual(expected);
  });

  it("copies the project list instead of sharing it", () => {
    const input = { mode: "projects", projects: ["/a"] };
    const parsed = parseScope(input);
    parsed?.projects.push("/b");
    expect(input.projects).toEqual(["/a"]);
  });
});

describe("normalizeScope", () => {
  it("stores normalized paths, de-duplicated, blanks dropped, first spelling's position kept", () => {
    expect(
      normalizeScope({
        mode: "projects",
        projects: ["C:\\Work\\Mono\\", "/home/ada", "c:/work/mono", " ", "file:///home/ada/", "/Home/Ada/x"],
      }),
    ).toEqual({ mode: "projects", projects: ["c:/work/mono", "/home/ada", "/home/ada/x"] });
  });

  it("keeps the projects of a global scope, so switching back to projects needs no re-picking", () => {
    expect(normalizeScope({ mode: "global", projects: ["/A/"] })).toEqual({ mode: "global", projects: ["/a"] });
  });
});

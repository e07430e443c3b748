import { describe, expect, it } from "vitest";
import { projectFromRoots, ROOTS_INPUT_KEY } from "./roots";

const answer = (roots: unknown) => ({ [ROOTS_INPUT_KEY]: { roots } });

describe("projectFromRoots", () => {
  it.each([
    [undefined, undefined],
    [{}, undefined],
    [{ other: { roots: [] } }, undefined],
    [answer("nope"), undefined],
    [answer([]), null],
    [answer([{ uri: "https://example.com/repo" }]), null],
    [answer([{ uri: "file:///Users/Ana/Code/App/" }]), "/users/ana/code/app"],
    [answer([{ uri: "https://x" }, { uri: "file:///srv/api", name: "api" }, { uri: "file:///srv/web" }]), "/srv/api"],
    [answer([{ uri: "file:///C:/Work/Repo" }]), "c:/work/repo"],
    [answer([{ uri: "file:///home/ana/my%20project" }]), "/home/ana/my project"],
    [{ [ROOTS_INPUT_KEY]: { result: { roots: [{ uri: "file:///srv/a" }] } } }, "/srv/a"],
  ])("%j gives %j", (responses, project) => expect(projectFromRoots(responses)).toEqual(project));
});

import { describe, expect, it } from "vitest";
import { AppError } from "../../errors";
import { chooseSession } from "./session-choice";

const none = { consent: null, endpoint: null, request: { mode: null, project: null } };

describe("chooseSession", () => {
  it("defaults to agent mode and no project, which the client's roots may still name", () => {
    expect(chooseSession(none)).toEqual({ mode: "agent", project: null, rootsMayName: true });
  });

  it("takes the request's mode and project, normalised", () => {
    expect(chooseSession({ ...none, request: { mode: "plan", project: "file:///home/me/app/" } })).toEqual({
      mode: "plan",
      project: "/home/me/app",
      rootsMayName: false,
    });
  });

  it("lets a saved endpoint's settings bind the URL, its null project included", () => {
    const endpoint = { mode: "goal" as const, project: null };
    expect(chooseSession({ ...none, endpoint, request: { mode: "agent", project: "/other" } })).toEqual({
      mode: "goal",
      project: null,
      rootsMayName: false,
    });
  });

  it("puts the consent's pins above the endpoint's and the request's", () => {
    expect(
      chooseSession({
        consent: { mode: "plan", project: "/consented" },
        endpoint: { mode: "agent", project: "/endpoint" },
        request: { mode: "goal", project: "/request" },
      }),
    ).toEqual({ mode: "plan", project: "/consented", rootsMayName: false });
    // A consent that pinned no project leaves it to the next source.
    expect(
      chooseSession({ consent: { mode: null, project: null }, endpoint: null, request: { mode: null, project: "/r" } }),
    ).toMatchObject({ mode: "agent", project: "/r" });
  });

  it("refuses an unknown mode, naming the ones there are", () => {
    expect(() => chooseSession({ ...none, request: { mode: "yolo", project: null } })).toThrow(AppError);
    expect(() => chooseSession({ ...none, request: { mode: "yolo", project: null } })).toThrow(
      'Unknown mode "yolo": use agent, plan or goal.',
    );
  });
});

import { describe, expect, it } from "vitest";
import { deviceIdOf, FITTING_MAX_AGE_MS, folderClientOf, kindsReadFromFolders } from "./fitting";

const now = new Date("2026-12-02T12:00:00Z");
const ago = (ms: number) => new Date(now.getTime() - ms);
const both = { readers: [{ client: "claude-code", kinds: ["skill", "persona"] }], syncedAt: ago(60_000) };

describe("kindsReadFromFolders", () => {
  it("leaves out what a fresh sync reported the named client reads", () => {
    expect([...kindsReadFromFolders("claude-code", both, now)].sort()).toEqual(["persona", "skill"]);
    const skillsOnly = { readers: [{ client: "claude-code", kinds: ["skill"] }], syncedAt: ago(1000) };
    expect([...kindsReadFromFolders("claude-code", skillsOnly, now)]).toEqual(["skill"]);
  });

  it("maps each folder client's handshake name to the CLI's name for it", () => {
    const sync = {
      readers: [
        { client: "codex", kinds: ["skill"] },
        { client: "cursor", kinds: ["skill", "persona"] },
        { client: "opencode", kinds: ["persona"] },
      ],
      syncedAt: ago(0),
    };
    expect([...kindsReadFromFolders("codex-mcp-client", sync, now)]).toEqual(["skill"]);
    expect([...kindsReadFromFolders("cursor-vscode", sync, now)].sort()).toEqual(["persona", "skill"]);
    expect([...kindsReadFromFolders("opencode", sync, now)]).toEqual(["persona"]);
    // Claude Code was not reported as a reader on this device.
    expect(kindsReadFromFolders("claude-code", sync, now).size).toBe(0);
  });

  it("gives the whole list to other clients, unnamed clients and clients without a sync", () => {
    expect(kindsReadFromFolders("claude-ai", both, now).size).toBe(0);
    expect(kindsReadFromFolders("codex", both, now).size).toBe(0); // the CLI's name is not a handshake name
    expect(kindsReadFromFolders(null, both, now).size).toBe(0);
    expect(kindsReadFromFolders("", both, now).size).toBe(0);
    expect(kindsReadFromFolders("constructor", both, now).size).toBe(0);
    expect(kindsReadFromFolders("claude-code", null, now).size).toBe(0);
  });

  it("trusts a sync for 7 days, and not one from the future", () => {
    expect(kindsReadFromFolders("claude-code", { ...both, syncedAt: ago(FITTING_MAX_AGE_MS) }, now).size).toBe(2);
    expect(kindsReadFromFolders("claude-code", { ...both, syncedAt: ago(FITTING_MAX_AGE_MS + 1) }, now).size).toBe(0);
    expect(kindsReadFromFolders("claude-code", { ...both, syncedAt: ago(-3_600_000) }, now).size).toBe(0);
  });

  it("ignores kinds it does not know", () => {
    const odd = { readers: [{ client: "claude-code", kinds: ["prompt", "skill"] }], syncedAt: ago(0) };
    expect([...kindsReadFromFolders("claude-code", odd, now)]).toEqual(["skill"]);
  });
});

describe("folderClientOf and deviceIdOf", () => {
  it("knows the four handshake names only", () => {
    expect(folderClientOf("claude-code")).toBe("claude-code");
    expect(folderClientOf("Claude-Code")).toBeNull();
    expect(folderClientOf("toString")).toBeNull();
  });

  it("takes a device id of 8 to 64 URL-safe characters, trimmed", () => {
    expect(deviceIdOf(" dev_0123456789abcdef ")).toBe("dev_0123456789abcdef");
    expect(deviceIdOf("short")).toBeNull();
    expect(deviceIdOf("has space inside")).toBeNull();
    expect(deviceIdOf(undefined)).toBeNull();
    expect(deviceIdOf("x".repeat(65))).toBeNull();
  });
});
